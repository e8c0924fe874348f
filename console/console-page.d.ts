// The page as serverless/console-page.cjs builds it from console/src and hands it to
// functions/console.ts: only that esbuild plugin resolves this module.
declare module 'console-page' {
  /** The page's script (console/src/main.ts and what it imports), minified. */
  export const script: string;
  /** The page's style sheet (console/src/console.css), minified. */
  export const style: string;
  /** An ETag of each, from its content. */
  export const scriptTag: string;
  export const styleTag: string;
}
