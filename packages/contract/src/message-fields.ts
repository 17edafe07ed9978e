/**
 * A generated message's fields without its protobuf-es bookkeeping, so the readers take a message
 * or any plain object of the same shape (what a lenient JSON reader builds).
 */
export type MessageFields<M> = Omit<M, "$typeName" | "$unknown">;
