// Counts the onnxruntime sessions created and released in this process, by wrapping
// InferenceSession.create and InferenceSession.prototype.release (the tests' bundles share the
// one onnxruntime-node module the engine requires).
import type * as ortTypes from 'onnxruntime-node';

export interface SessionCount {
  readonly created: number;
  readonly released: number;
  restore(): void;
}

export function countSessions(): SessionCount {
  const ort = require('onnxruntime-node') as typeof ortTypes;
  const Session = ort.InferenceSession as unknown as {
    create: (...a: unknown[]) => Promise<unknown>;
    prototype: { release: (...a: unknown[]) => Promise<void> };
  };
  const create = Session.create;
  const release = Session.prototype.release;
  const count = { created: 0, released: 0 };
  Session.create = async function (this: unknown, ...a: unknown[]) {
    const s = await create.apply(this, a);
    count.created++;
    return s;
  };
  Session.prototype.release = function (this: unknown, ...a: unknown[]) {
    count.released++;
    return release.apply(this, a);
  };
  return {
    get created() {
      return count.created;
    },
    get released() {
      return count.released;
    },
    restore() {
      Session.create = create;
      Session.prototype.release = release;
    },
  };
}
