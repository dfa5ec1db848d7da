/**
 * A queue read as an async iterator: values pushed before they are awaited wait in order; the
 * iteration ends once the queue is ended and drained, or when the reader stops (`break`).
 */
export class AsyncQueue<T> implements AsyncIterableIterator<T> {
  private readonly values: T[] = [];
  private waiting: ((result: IteratorResult<T, undefined>) => void) | undefined;
  private ended = false;

  /** Called once when the iteration ends, by `end()` or by the reader. */
  constructor(private readonly onEnd: () => void = () => {}) {}

  /** Adds a value (ignored once ended). */
  push(value: T): void {
    if (this.ended) {
      return;
    }
    if (this.waiting) {
      const wake = this.waiting;
      this.waiting = undefined;
      wake({ value, done: false });
    } else {
      this.values.push(value);
    }
  }

  /** Ends the iteration after the values already pushed. */
  end(): void {
    if (this.ended) {
      return;
    }
    this.ended = true;
    this.onEnd();
    if (this.waiting) {
      const wake = this.waiting;
      this.waiting = undefined;
      wake({ value: undefined, done: true });
    }
  }

  /** The next value, waiting for one when none is queued. */
  next(): Promise<IteratorResult<T, undefined>> {
    if (this.values.length > 0) {
      return Promise.resolve({ value: this.values.shift() as T, done: false });
    }
    if (this.ended) {
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  /** The reader stopped (`break`, `return` or a throw in a `for await`): the queue ends. */
  return(): Promise<IteratorResult<T, undefined>> {
    this.values.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  /** The queue itself. */
  [Symbol.asyncIterator](): this {
    return this;
  }
}
