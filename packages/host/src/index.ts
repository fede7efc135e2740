/**
 * Citeflow's run host: what every front end (the CLI, the kernel and so the editor, notebooks)
 * starts runs through. Front ends render; the rules for opening graphs, consent, starting runs and
 * question sets, and steering the runs in progress are here, once.
 */
export { Host, processHost } from "./host.js";
export { Session, type RunRequest } from "./session.js";
export { QuestionSet, type QuestionSetOptions } from "./sets.js";
export { openGraph } from "./graphs.js";
export { activeRun, abortActiveRuns } from "./active.js";
