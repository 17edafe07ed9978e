/**
 * gRPC server reflection (grpc.reflection.v1 and its v1alpha predecessor, same wire format), so
 * grpcurl, buf curl and Postman list and call the services without a copy of the protos.
 * Built on the descriptors the generated code already embeds: nothing is read from disk.
 *
 * No published package for connect-es was usable (the one found is not on the npm registry), so
 * this implements the protocol from reflection.proto: list_services, file_by_filename and
 * file_containing_symbol (each answered with the file and its transitive dependencies);
 * extensions are not used by Gatehouse's protos and answer NOT_FOUND / an empty list.
 */
import { Code, type ConnectRouter } from "@connectrpc/connect";
import { toBinary, type DescFile, type DescService } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { ServerReflection as ServerReflectionV1 } from "@gatehouse/contract/gen/grpc/reflection/v1/reflection_pb";
import { ServerReflection as ServerReflectionV1alpha } from "@gatehouse/contract/gen/grpc/reflection/v1alpha/reflection_pb";

/** The request's oneof, as both protocol versions spell it. */
type Question =
  | { case: "fileByFilename"; value: string }
  | { case: "fileContainingSymbol"; value: string }
  | { case: "fileContainingExtension"; value: { containingType: string; extensionNumber: number } }
  | { case: "allExtensionNumbersOfType"; value: string }
  | { case: "listServices"; value: string }
  | { case: undefined; value?: undefined };

type Answer =
  | { case: "fileDescriptorResponse"; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: "allExtensionNumbersResponse"; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: "listServicesResponse"; value: { service: { name: string }[] } }
  | { case: "errorResponse"; value: { errorCode: number; errorMessage: string } };

/** What the server offers, read from the router once every service is registered. */
export class ReflectionIndex {
  readonly #services: readonly string[];
  readonly #files = new Map<string, DescFile>();
  readonly #symbols = new Map<string, DescFile>();

  constructor(services: readonly DescService[]) {
    this.#services = [...new Set(services.map((service) => service.typeName))].sort();
    for (const service of services) this.#addFile(service.file);
  }

  answer(question: Question): Answer {
    switch (question.case) {
      case "listServices":
        return { case: "listServicesResponse", value: { service: this.#services.map((name) => ({ name })) } };
      case "fileByFilename":
        return this.#fileAnswer(this.#files.get(question.value), `file not found: ${question.value}`);
      case "fileContainingSymbol":
        return this.#fileAnswer(this.#fileOfSymbol(question.value), `symbol not found: ${question.value}`);
      case "fileContainingExtension":
        return notFound(`extension not found: ${question.value.containingType}(${question.value.extensionNumber})`);
      case "allExtensionNumbersOfType":
        return this.#symbols.has(question.value)
          ? { case: "allExtensionNumbersResponse", value: { baseTypeName: question.value, extensionNumber: [] } }
          : notFound(`type not found: ${question.value}`);
      default:
        return { case: "errorResponse", value: { errorCode: Code.InvalidArgument, errorMessage: "no request set" } };
    }
  }

  #addFile(file: DescFile): void {
    if (this.#files.has(file.proto.name)) return;
    this.#files.set(file.proto.name, file);
    for (const service of file.services) {
      this.#symbols.set(service.typeName, file);
      for (const method of service.methods) this.#symbols.set(`${service.typeName}.${method.name}`, file);
    }
    for (const message of file.messages) this.#addMessage(message, file);
    for (const enumeration of file.enums) this.#symbols.set(enumeration.typeName, file);
    for (const extension of file.extensions) this.#symbols.set(extension.typeName, file);
    for (const dependency of file.dependencies) this.#addFile(dependency);
  }

  #addMessage(message: DescFile["messages"][number], file: DescFile): void {
    this.#symbols.set(message.typeName, file);
    for (const nested of message.nestedMessages) this.#addMessage(nested, file);
    for (const enumeration of message.nestedEnums) this.#symbols.set(enumeration.typeName, file);
  }

  /** A field or enum value names its parent: `pkg.Msg.field` resolves to the file of `pkg.Msg`. */
  #fileOfSymbol(symbol: string): DescFile | undefined {
    const direct = this.#symbols.get(symbol);
    if (direct !== undefined) return direct;
    const parent = symbol.slice(0, Math.max(0, symbol.lastIndexOf(".")));
    return parent === "" ? undefined : this.#symbols.get(parent);
  }

  #fileAnswer(file: DescFile | undefined, missing: string): Answer {
    if (file === undefined) return notFound(missing);
    const closure: DescFile[] = [];
    const seen = new Set<string>();
    const visit = (current: DescFile) => {
      if (seen.has(current.proto.name)) return;
      seen.add(current.proto.name);
      closure.push(current);
      current.dependencies.forEach(visit);
    };
    visit(file);
    return { case: "fileDescriptorResponse", value: { fileDescriptorProto: closure.map((each) => toBinary(FileDescriptorProtoSchema, each.proto)) } };
  }
}

function notFound(errorMessage: string): Answer {
  return { case: "errorResponse", value: { errorCode: Code.NotFound, errorMessage } };
}

/**
 * Registers both protocol versions. Call it after every other service: the index is built from
 * the router's handlers on the first request, so it lists exactly what is served (itself included).
 */
export function registerReflection(router: ConnectRouter): void {
  let index: ReflectionIndex | undefined;
  const indexNow = () => (index ??= new ReflectionIndex(router.handlers.map((handler) => handler.service)));
  router.service(ServerReflectionV1, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) {
        yield { validHost: request.host, originalRequest: request, messageResponse: indexNow().answer(request.messageRequest) };
      }
    },
  });
  router.service(ServerReflectionV1alpha, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) {
        yield { validHost: request.host, originalRequest: request, messageResponse: indexNow().answer(request.messageRequest) };
      }
    },
  });
}
