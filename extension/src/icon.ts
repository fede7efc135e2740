/** Citeflow's icon (a small pipeline: three nodes, two edges), a LabIcon so it follows the theme like JupyterLab's own. */
import { LabIcon } from "@jupyterlab/ui-components";

const svgstr = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">
  <g class="jp-icon3" fill="#616161">
    <rect x="1" y="2" width="5" height="4" rx="1"/>
    <rect x="10" y="2" width="5" height="4" rx="1"/>
    <rect x="5.5" y="10" width="5" height="4" rx="1"/>
  </g>
  <g class="jp-icon-brand0" fill="none" stroke="#1976d2" stroke-width="1.2">
    <path d="M6 4h4"/>
    <path d="M12.5 6v2.5H8V10"/>
  </g>
</svg>`;

export const pipelineIcon = new LabIcon({ name: "citeflow:pipeline", svgstr });
