// Creates the JupyterLab application from the bundled core plugins and the federated extensions.
import { PageConfig } from "@jupyterlab/coreutils";
import { extensions, mimeExtensions } from "citeflow-lab-plugins";
import "../build/style.js";

/** Plugins of a module (ES default export or CommonJS), minus the disabled ones. */
function pluginsOf(mod) {
  const exported = Object.prototype.hasOwnProperty.call(mod, "__esModule") ? mod.default : mod;
  const list = Array.isArray(exported) ? exported : [exported];
  // No language-server providers are bundled, so their consumers are left out.
  return list.filter((p) => !p.id.includes(":language-server") && !PageConfig.Extension.isDisabled(p.id));
}

async function federatedModule(scope, module) {
  const factory = await window._JUPYTERLAB[scope].get(module);
  return factory();
}

export async function main(federated) {
  const { JupyterLab } = await import("@jupyterlab/application");
  const mime = (await Promise.all(mimeExtensions())).flatMap(pluginsOf);
  const plugins = (await Promise.all(extensions())).flatMap(pluginsOf);
  for (const data of federated) {
    try {
      if (data.mimeExtension) mime.push(...pluginsOf(await federatedModule(data.name, data.mimeExtension)));
      if (data.extension) plugins.push(...pluginsOf(await federatedModule(data.name, data.extension)));
      if (data.style) await federatedModule(data.name, data.style);
    } catch (e) {
      console.error(`extension ${data.name}:`, e);
    }
  }
  // As JupyterLab 4.4+ does: plugins may provide the service manager and connection status.
  const { PluginRegistry } = await import("@lumino/coreutils");
  const { IConnectionStatus, IServiceManager } = await import("@jupyterlab/services");
  const pluginRegistry = new PluginRegistry();
  pluginRegistry.registerPlugins(plugins);
  const serviceManager = await pluginRegistry.resolveOptionalService(IServiceManager);
  const connectionStatus = await pluginRegistry.resolveOptionalService(IConnectionStatus);
  const lab = new JupyterLab({ pluginRegistry, serviceManager, connectionStatus, mimeExtensions: mime });
  await lab.start({ bubblingKeydown: true });
  await lab.restored;
  // Tests and power users reach the app as JupyterLab's dev mode exposes it.
  if ((PageConfig.getOption("exposeAppInBrowser") || "").toLowerCase() === "true") window.jupyterapp = lab;
}
