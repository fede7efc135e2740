"""Debian's jupyter_kernel_test suite against the Citeflow kernel (kernel name from CITEFLOW_KERNEL)."""
import os
import unittest

import jupyter_kernel_test


class CiteflowKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = os.environ.get("CITEFLOW_KERNEL", "citeflow")
    language_name = "typescript"
    file_extension = ".ts"

    code_hello_world = 'console.log("hello, world")'
    code_stderr = 'console.error("oops")'

    completion_samples = [
        {"text": "Math.flo", "matches": {"floor"}},
        {"text": "const alphaBeta = 1; alphaB", "matches": {"alphaBeta"}},
    ]
    complete_code_samples = ["1 + 1", "const x = 2;", "function f() { return 1; }"]
    incomplete_code_samples = ["function f() {", "const a = [1,", "if (true) {"]

    code_generate_error = 'throw new Error("boom")'
    code_execute_result = [
        {"code": "6 * 7", "result": "42"},
        {"code": "'a' + 'b'", "result": "'ab'"},
        {"code": "[1, 2].length", "result": "2"},
    ]
    code_display_data = [
        {"code": 'display.html("<b>hi</b>")', "mime": "text/html"},
        {"code": 'display.markdown("# hi")', "mime": "text/markdown"},
        {"code": 'display.json({ a: 1 })', "mime": "application/json"},
        {"code": 'display.raw("image/svg+xml", "<svg></svg>")', "mime": "image/svg+xml"},
    ]
    code_history_pattern = "6 *"
    supported_history_operations = ("tail", "range", "search")
    code_inspect_sample = "Math.max"
    code_clear_output = "display.clear()"
    code_page_something = "Math.max?"


if __name__ == "__main__":
    unittest.main()
