// A download's body made of chunks that live in memory the source reuses (a local file read into
// one buffer): piped into the response, no chunk is allocated per read, so twenty downloads at once
// do not leave megabytes of dead chunks behind for V8 to collect late (docs/decisions.md, "Serving
// memory"). The local driver sends through it (S3 downloads are the SDK's stream: "Storage through its SDK").
import { Readable } from 'node:stream';

/** Where a body's bytes come from: each chunk is a view of memory the source reuses. */
export interface ChunkSource {
  /** The next chunk, or null after the last. Asking gives the previous chunk's memory back: it may be overwritten from then on. */
  next(): Promise<Buffer | null>;
  /** Lets go of the file or connection (also before the last chunk: the buyer went away). */
  close(): Promise<void>;
}

/**
 * Piped into one destination, which is how the server sends a response body, it asks for the
 * next chunk only once the destination has handed the last to the socket (the write's callback).
 * Read any other way, it is an ordinary stream: each chunk is copied out (a buffer per chunk).
 */
export class ReusedBufferBody extends Readable {
  #source: ChunkSource;

  constructor(source: ChunkSource) {
    super();
    this.#source = source;
  }

  override _read(): void {
    this.#source.next().then(
      (chunk) => this.push(chunk && Buffer.from(chunk)),
      (error: Error) => this.destroy(error),
    );
  }

  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    // Already being read otherwise: an ordinary pipe.
    if (this.readableFlowing !== null || this.readableDidRead) return super.pipe(destination, options);
    this.#pump(destination, options?.end !== false).then(
      () => this.destroy(),
      (error: Error) => this.destroy(error),
    );
    return destination;
  }

  async #pump(destination: NodeJS.WritableStream, end: boolean): Promise<void> {
    for (let chunk = await this.#source.next(); chunk !== null && !this.destroyed; chunk = await this.#source.next()) {
      // A failed write is the destination's (the buyer went away), not the storage's: just stop.
      const written = await new Promise<boolean>((resolve) => destination.write(chunk!, (error) => resolve(!error)));
      if (!written || this.destroyed) return;
    }
    if (end && !this.destroyed) destination.end();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#source.close().then(
      () => callback(error),
      () => callback(error),
    );
  }
}
