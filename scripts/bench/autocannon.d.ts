// The part of autocannon 9's programmatic API the load runner uses (the package ships no types).
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    requests?: Request[];
  }

  type Instance = EventEmitter & PromiseLike<{ errors: number; non2xx: number; statusCodeStats: Record<string, { count: number }> }>;

  export default function autocannon(options: Options): Instance;
}
