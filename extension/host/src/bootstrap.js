// Runs before anything else: finds the static URL, loads every prebuilt (federated) extension the
// server lists, joins them to the shared scope, then starts the app.

function pageOption(name) {
  const el = document.getElementById("jupyter-config-data");
  const data = el ? JSON.parse(el.textContent || "{}") : {};
  return data[name] || "";
}

// eslint-disable-next-line no-undef
__webpack_public_path__ = pageOption("fullStaticUrl") + "/";

function loadScript(url) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.onerror = () => reject(new Error(`could not load ${url}`));
    script.onload = resolve;
    script.async = true;
    document.head.appendChild(script);
    script.src = url;
  });
}

async function loadFederated(base, data) {
  await loadScript(`${base}/${data.name}/${data.load}`);
  // eslint-disable-next-line no-undef
  await __webpack_init_sharing__("default");
  // eslint-disable-next-line no-undef
  await window._JUPYTERLAB[data.name].init(__webpack_share_scopes__.default);
}

void (async () => {
  const federated = pageOption("federated_extensions") || [];
  const base = pageOption("fullLabextensionsUrl");
  const loaded = await Promise.allSettled(federated.map((d) => loadFederated(base, d)));
  loaded.forEach((r, i) => r.status === "rejected" && console.error(`extension ${federated[i].name}:`, r.reason));
  const ok = federated.filter((_, i) => loaded[i].status === "fulfilled");
  const { main } = await import("./index.js");
  await main(ok);
})();
