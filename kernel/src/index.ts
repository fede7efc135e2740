export { main } from "./main.js";
export { Kernel, resultBundle, KERNEL_VERSION } from "./kernel.js";
export { Runtime, defaultRoot, type Outcome } from "./runtime.js";
export { citeflowTarget } from "./citeflow-comm.js";
export type { Comm, CommHandler } from "./comm.js";
export { installKernelspec, uninstallKernelspec, kernelspec, type InstallOptions } from "./kernelspec.js";
