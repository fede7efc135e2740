import "@xyflow/react/dist/style.css";
import "./index.css";
