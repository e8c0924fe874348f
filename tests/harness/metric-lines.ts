// The service writes a CloudWatch EMF line to stdout for every metric, as on Lambda: thousands in a
// bench or fuzz run, which would bury its report. Their cost stays in the figures; the lines go.

/** Drops EMF lines from this process's stdout until the returned function is called. */
export function dropMetricLines(): () => void {
  const write = process.stdout.write;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) =>
    String(chunk).startsWith('{"_aws"')
      ? true
      : (write as (...args: unknown[]) => boolean).call(process.stdout, chunk, ...rest)) as typeof write;
  return () => {
    process.stdout.write = write;
  };
}
