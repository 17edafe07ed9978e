import { create, fromBinary, toBinary, toJson, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";

/** A message as the other side receives it: built from the init, serialised and parsed again. */
export function overTheWire<Desc extends DescMessage>(schema: Desc, init: MessageInitShape<Desc>): MessageShape<Desc> {
  return fromBinary(schema, toBinary(schema, create(schema, init)));
}

/** The proto's own JSON form with the .proto field names and every field written out. */
export function protoJson<Desc extends DescMessage>(schema: Desc, init: MessageInitShape<Desc>): unknown {
  return toJson(schema, create(schema, init), { useProtoFieldName: true, alwaysEmitImplicit: true });
}

/** A `Refuse` that throws what it was given, so a test can read the field and the problem. */
export class Refused extends Error {
  readonly field: string;
  readonly problem: string;
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.field = field;
    this.problem = problem;
  }
}

export const refuse = (field: string, problem: string): Error => new Refused(field, problem);
