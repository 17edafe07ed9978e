export * from "./gen/gatehouse/v1/auth_pb.ts";
export * from "./gen/gatehouse/v1/browser_pb.ts";
export * from "./gen/gatehouse/v1/dev_pb.ts";
export * from "./gen/gatehouse/v1/admin_pb.ts";
