// Builds a JupyterLab 4.5 front end from the npm packages listed in package.json, as JupyterLab's
// own app does: assets (styles, schemas, themes) via @jupyterlab/builder, a module-federation core
// ("CORE_FEDERATION") sharing the singleton packages, and a bootstrap that loads prebuilt
// (federated) extensions from the server's labextensions folder before starting the app.
const path = require("path");
const fs = require("fs");
const webpack = require("webpack");
const { merge } = require("webpack-merge");
const { Build } = require("@jupyterlab/builder");
const baseConfig = require("@jupyterlab/builder/lib/webpack.config.base");
const pkg = require("./package.json");

const build = path.join(__dirname, "build");
const jlab = pkg.jupyterlab;
fs.rmSync(build, { recursive: true, force: true });
fs.mkdirSync(build, { recursive: true });

const themes = Build.ensureAssets({ packageNames: [...jlab.extensions, ...jlab.mimeExtensions], output: build });

// The plugin list, generated from package.json so the two never drift apart.
const imports = (names) => names.map((n) => `  import(${JSON.stringify(n)}),`).join("\n");
fs.writeFileSync(
  path.join(build, "plugins.js"),
  `export const extensions = () => [\n${imports(jlab.extensions)}\n];\nexport const mimeExtensions = () => [\n${imports(jlab.mimeExtensions)}\n];\n`,
);

// Every dependency is shared; JupyterLab's singletons must be single instances across the host
// and every federated extension.
const shared = {};
for (const [name, version] of Object.entries(pkg.dependencies)) {
  shared[name] = { requiredVersion: version.replace("~", "^"), singleton: jlab.singletonPackages.includes(name) };
}

module.exports = [
  merge(baseConfig, {
    // Production React and JupyterLab, as a pip-installed JupyterLab serves them (development builds
    // run React's checks on every render); not minified, to keep the build short.
    // CITEFLOW_LAB_DEV=1 builds for development instead.
    mode: process.env.CITEFLOW_LAB_DEV === "1" ? "development" : "production",
    optimization: { minimize: false },
    devtool: false,
    entry: { main: path.join(__dirname, "src", "bootstrap.js") },
    output: { path: path.join(build, "static"), publicPath: "auto", filename: "[name].[contenthash].js", chunkFilename: "[name].[contenthash].js" },
    resolve: { alias: { "citeflow-lab-plugins": path.join(build, "plugins.js") } },
    plugins: [
      new webpack.container.ModuleFederationPlugin({
        library: { type: "var", name: ["_JUPYTERLAB", "CORE_LIBRARY_FEDERATION"] },
        name: "CORE_FEDERATION",
        shared,
      }),
      new (class WriteIndex {
        apply(compiler) {
          compiler.hooks.done.tap("WriteIndex", (stats) => {
            const main = stats.toJson({ all: false, entrypoints: true }).entrypoints.main.assets.map((a) => a.name);
            const tpl = fs.readFileSync(path.join(__dirname, "templates", "page.html"), "utf8");
            const scripts = main.map((f) => `<script src="{{page_config['fullStaticUrl'] | e}}/${f}"></script>`).join("\n");
            fs.mkdirSync(path.join(build, "templates"), { recursive: true });
            fs.writeFileSync(path.join(build, "templates", "index.html"), tpl.replace("<!-- scripts -->", scripts));
          });
        }
      })(),
    ],
  }),
  ...themes,
];
