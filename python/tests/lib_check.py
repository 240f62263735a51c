#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The package's declaration of the C library against the library itself.

    lib_check.py BUILD_DIR

- the structures declared in inceptionn/_lib.py have the sizes and field
  offsets the C compiler gives the header's (a C program generated here);
- the compression names come from the library's table (inc_compression_list);
- errors: unknown compression, bad arguments, inc_strerror's text, and a
  library that cannot be loaded names INC_LIBRARY=/path/libinceptionn.so.
One "ok"/"FAIL" line per check.
"""
import os
import subprocess
import sys
import tempfile

import inceptionn
import inceptionn._lib as lib

failed = 0


def report(ok, what):
    global failed
    failed += not ok
    print("%s %s" % ("ok  " if ok else "FAIL", what), flush=True)


def c_layout(tmp):
    """The same table as lib.layout(), from the C compiler."""
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <inceptionn/inceptionn.h>",
             "int main(void) {", "char buf[512];"]
    for struct, (_, fields) in lib.layout().items():
        lines.append('printf("%s %%zu\\n", sizeof(struct %s));' % (struct, struct))
        for f in fields:
            lines.append('printf("%s.%s %%zu\\n", offsetof(struct %s, %s));' % (struct, f, struct, f))
    lines += ['inc_compression_list(buf, sizeof(buf), " ");', 'printf("list %s\\n", buf);',
              "return 0; }"]
    src, exe = os.path.join(tmp, "layout.c"), os.path.join(tmp, "layout")
    with open(src, "w") as f:
        f.write("\n".join(lines) + "\n")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    subprocess.run(["cc", "-std=c11", "-I", os.path.join(root, "userlib", "include"), "-o", exe,
                    src, os.path.join(sys.argv[1], "lib", "libinceptionn.a"), "-lpthread", "-lm"],
                   check=True)
    out = {}
    for line in subprocess.run([exe], check=True, capture_output=True, text=True).stdout.splitlines():
        k, _, v = line.partition(" ")
        out[k] = v
    return out


def main():
    with tempfile.TemporaryDirectory() as tmp:
        c = c_layout(tmp)
    for struct, (size, fields) in lib.layout().items():
        bad = ["%s %d != %s" % (f, off, c["%s.%s" % (struct, f)]) for f, off in fields.items()
               if str(off) != c["%s.%s" % (struct, f)]]
        if str(size) != c[struct]:
            bad.append("sizeof %d != %s" % (size, c[struct]))
        report(not bad, "struct %s: %d bytes, %d fields as in the header%s"
               % (struct, size, len(fields), (": " + "; ".join(bad)) if bad else ""))
    names = [e["name"] for e in inceptionn.compressions()]
    report(" ".join(names) == c["list"],
           "compression table from the library: %s" % " ".join(names))
    report(all(lib.compression_mode(n) == e["mode"] for n, e in
               zip(names, inceptionn.compressions())), "every name parses to its mode")
    try:
        lib.compression_mode("zip")
        report(False, "unknown compression accepted")
    except ValueError as e:
        report("software" in str(e), "unknown compression: %s" % e)
    report("closed" in lib.strerror(-38),
           "inc_strerror(-38): %s" % lib.strerror(-38))
    try:
        lib.check(-37, "inc_wait")
        report(False, "check(-37) did not raise")
    except inceptionn.InceptionnError as e:
        report(e.code == -37 and lib.strerror(-37) in str(e), "InceptionnError: %s" % e)

    import inceptionn.torch as inct
    for kw, what in ((dict(error_bound=0), "error_bound"), (dict(error_feedback="maybe"), "error_feedback"),
                     (dict(compression="gzip"), "compression"), (dict(algo="tree"), "algo")):
        try:
            inct._options(kw.get("compression"), kw.get("error_bound"), kw.get("error_feedback"),
                          None, None, {k: v for k, v in kw.items() if k == "algo"})
            report(False, "%s=%r accepted" % (what, kw))
        except ValueError as e:
            report(True, "refused: %s" % e)
    env = dict(os.environ, INC_ERROR_FEEDBACK="off")
    r = subprocess.run([sys.executable, "-c", "import inceptionn.torch as t; "
                        "print(t._options('software', None, None, None, None, {})[1]['error_feedback_active'])"],
                       env=env, capture_output=True, text=True)
    report(r.stdout.strip() == "False", "INC_ERROR_FEEDBACK=off applies when register() does not "
           "say: %s" % r.stdout.strip())
    r = subprocess.run([sys.executable, "-c", "import inceptionn.torch as t; "
                        "print(t._options('software', None, True, None, None, {})[1]['error_feedback_active'])"],
                       env=env, capture_output=True, text=True)
    report(r.stdout.strip() == "True", "error_feedback=True wins over INC_ERROR_FEEDBACK=off")
    for lib_env in ("/nonexistent/libinceptionn.so", "/etc/hostname"):
        r = subprocess.run([sys.executable, "-c", "import inceptionn.torch"],
                           env=dict(os.environ, INC_LIBRARY=lib_env), capture_output=True, text=True)
        last = (r.stderr.strip().splitlines() or [""])[-1]
        report(r.returncode != 0 and "INC_LIBRARY=/path/libinceptionn.so" in last
               and last.count("\n") == 0, "INC_LIBRARY=%s: %s" % (lib_env, last))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
