/** What a command printed: its `io` for the command, and the text it wrote to stdout and stderr. */
export function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (text: string) => void out.push(text), stderr: (text: string) => void err.push(text) },
    out: () => out.join(''),
    err: () => err.join(''),
  };
}
