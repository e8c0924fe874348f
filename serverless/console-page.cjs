// The console's page (API contract 3.14), built by esbuild from console/src for browsers and handed
// to functions/console.ts as text: the function's bundle is its one file on a deployed stage and
// under serverless-offline alike, and the page loads nothing from another origin.
const { createHash } = require('node:crypto');
const { join } = require('node:path');

const CONSOLE_FOLDER = join(__dirname, '../console');
const ENTRY = join(CONSOLE_FOLDER, 'src/main.ts');
/** What functions/console.ts imports; only this plugin can resolve it (console/console-page.d.ts types it). */
const MODULE = 'console-page';

/** The page's script and style, minified, each with an ETag of its content; `inputs`: the files they came from. */
async function buildConsolePage(esbuild) {
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2022', 'chrome109', 'firefox115', 'safari16'],
    tsconfig: join(CONSOLE_FOLDER, 'tsconfig.json'),
    outdir: join(CONSOLE_FOLDER, 'out'),
    write: false,
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const output = (extension) => {
    const file = result.outputFiles.find((candidate) => candidate.path.endsWith(extension));
    if (!file) throw new Error(`the console built no ${extension}`);
    return file.text;
  };
  const [script, style] = [output('.js'), output('.css')];
  const etag = (text) => `"${createHash('sha256').update(text).digest('base64url').slice(0, 22)}"`;
  const inputs = Object.keys(result.metafile.inputs).map((input) => join(process.cwd(), input));
  return { script, style, scriptTag: etag(script), styleTag: etag(style), inputs };
}

const consolePage = {
  name: 'console-page',
  setup(build) {
    build.onResolve({ filter: new RegExp(`^${MODULE}$`) }, () => ({ path: MODULE, namespace: MODULE }));
    build.onLoad({ filter: /.*/, namespace: MODULE }, async () => {
      const { inputs, ...page } = await buildConsolePage(build.esbuild);
      const contents = Object.entries(page)
        .map(([name, value]) => `export const ${name} = ${JSON.stringify(value)};`)
        .join('\n');
      // npm start's watch rebuilds the page when one of its sources changes.
      return { contents, loader: 'js', watchFiles: inputs };
    });
  },
};

module.exports = { consolePage, buildConsolePage };
