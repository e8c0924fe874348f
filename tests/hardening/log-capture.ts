import { formatWithOptions } from 'node:util';

// Captures everything a test's process writes to stdout and stderr, and everything handed to
// the console, whichever way it goes out (Powertools writes to the streams, others to console).

export interface LogCapture {
  /** All text written so far. */
  text(): string;
  stop(): void;
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

export function captureLogs(): LogCapture {
  const chunks: string[] = [];
  const record = (value: unknown) =>
    chunks.push(typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : String(value));
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((stream) => stream.write);
  streams.forEach((stream, index) => {
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      record(chunk);
      return (writes[index] as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
    }) as typeof stream.write;
  });
  const originals = CONSOLE_METHODS.map((method) => console[method]);
  CONSOLE_METHODS.forEach((method, index) => {
    console[method] = (...args: unknown[]) => {
      // As the console would print it, nested objects and error properties in full.
      record(formatWithOptions({ depth: Infinity }, ...args));
      (originals[index] as (...args: unknown[]) => void).apply(console, args);
    };
  });
  return {
    text: () => chunks.join('\n'),
    stop: () => {
      for (const [index, stream] of streams.entries()) stream.write = writes[index]!;
      for (const [index, method] of CONSOLE_METHODS.entries()) console[method] = originals[index]!;
    },
  };
}
