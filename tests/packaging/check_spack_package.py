#!/usr/bin/env python3
"""Check klmini's Spack recipe against the CMake project, without Spack.

    check_spack_package.py REPO_ROOT

Reads packaging/spack/spack_repo/<namespace>/{repo.yaml,packages/klmini/package.py} with `ast`
(nothing is imported or run) and REPO_ROOT/CMakeLists.txt, and fails with a message for each of:

* repo.yaml has no namespace, one that is not its directory's name (Package API v2 derives the
  namespace from the path), or an api that is not v2.x;
* class Klmini does not derive from CMakePackage and CudaPackage (imported from
  spack_repo.builtin.build_systems), declares no openmp, mpi or kokkos_kernels variant, or
  redeclares cuda (CudaPackage's);
* cmake_args sets a name (self.define / define_from_variant, or a "-DNAME" string) that
  CMakeLists.txt does not declare: option() or set(... CACHE ...) for project options,
  include(CTest) for BUILD_TESTING, find_package(<Pkg>) for <Pkg>_ROOT and
  CMAKE_{DISABLE,REQUIRE}_FIND_PACKAGE_<Pkg>; other CMAKE_* names are CMake's own and pass.
  A name that is not a string literal cannot be checked and fails; so does CMAKE_CXX_COMPILER
  (the host compiler stays the C++ compiler; only Kokkos sources go to the device compiler), and
  a define_from_variant whose variant the recipe does not have;
* a numbered version("X.Y.Z") differs from project(klmini VERSION X.Y.Z);
* the lowest Kokkos the recipe accepts (depends_on("kokkos@A:")) differs from the
  `if(Kokkos_VERSION VERSION_LESS A)` refusal in CMakeLists.txt, and likewise for +cuda against
  `if(Kokkos_ENABLE_CUDA AND Kokkos_VERSION VERSION_LESS B)`;
* CMakeLists.txt installs scripts/sweep (klmini-sweep) or scripts/plot (klmini-plot) but the
  recipe has no unconditional run dependency on python, or on py-matplotlib for the plots.

Exit status 0 when all hold, 1 with the failures listed, 2 on bad usage or missing files.
Standard library only (Debian's /usr/bin/python3).
"""

import ast
import re
import sys
from pathlib import Path

PACKAGE = "klmini"
CLASS = "Klmini"
REQUIRED_VARIANTS = ("openmp", "mpi", "kokkos_kernels")
# Variants the recipe gets from its base classes (CudaPackage; CMakePackage's build system).
INHERITED_VARIANTS = {"cuda", "cuda_arch", "build_type", "ipo", "generator", "build_system"}
BASES = {
    "CMakePackage": "spack_repo.builtin.build_systems.cmake",
    "CudaPackage": "spack_repo.builtin.build_systems.cuda",
}
NUMBERED = re.compile(r"^\d+(\.\d+)*$")


class Failures(list):
    def add(self, message):
        self.append(message)


# ---- CMake side --------------------------------------------------------------------------------


def strip_cmake_comments(text):
    """CMake text without # comments (line and bracket comments), quoted strings kept."""
    out = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                in_string = False
            i += 1
            continue
        if c == '"':
            in_string = True
            out.append(c)
            i += 1
            continue
        if c == "#":
            bracket = re.match(r"#\[(=*)\[", text[i:])
            if bracket:
                end = text.find("]" + bracket.group(1) + "]", i)
                i = n if end < 0 else end + len(bracket.group(1)) + 2
            else:
                end = text.find("\n", i)
                i = n if end < 0 else end
            continue
        out.append(c)
        i += 1
    return "".join(out)


class CMakeProject:
    def __init__(self, path):
        self.path = path
        self.text = strip_cmake_comments(path.read_text(encoding="utf-8"))
        self.options = set(re.findall(r"\boption\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)", self.text, re.I))
        # set(NAME <value, quoted strings may hold parentheses> CACHE ...)
        self.cache = set(
            re.findall(
                r"\bset\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\b(?:\"(?:[^\"\\]|\\.)*\"|[^)\"])*?\bCACHE\b",
                self.text,
                re.I | re.S,
            )
        )
        self.packages = set(
            re.findall(r"\bfind_package\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)", self.text, re.I)
        )
        self.ctest = re.search(r"\binclude\s*\(\s*CTest\s*\)", self.text, re.I) is not None
        # install(PROGRAMS scripts/<name> ...): the Python scripts an install has
        self.installed_scripts = set(
            re.findall(r"\binstall\s*\(\s*PROGRAMS\s+scripts/([A-Za-z_.-]+)", self.text, re.I)
        )
        project = re.search(
            r"\bproject\s*\(\s*" + PACKAGE + r"\b[^)]*?\bVERSION\s+([0-9][0-9.]*)",
            self.text,
            re.I | re.S,
        )
        self.version = project.group(1).rstrip(".") if project else None
        # if(... Kokkos_VERSION VERSION_LESS X ...): the whole condition, and X
        self.kokkos_checks = []
        for cond in re.findall(r"\bif\s*\(([^()]*)\)", self.text, re.I):
            m = re.search(r"\bKokkos_VERSION\s+VERSION_LESS\s+\"?([0-9][0-9.]*)\"?", cond)
            if m:
                rest = (cond[: m.start()] + cond[m.end() :]).split()
                self.kokkos_checks.append((rest, m.group(1)))

    def kokkos_minimum(self, guard=None):
        """X of if(Kokkos_VERSION VERSION_LESS X), alone or as `guard AND ...`; None if absent."""
        for rest, version in self.kokkos_checks:
            if guard is None and not rest:
                return version
            if guard is not None and sorted(rest) == sorted([guard, "AND"]):
                return version
        return None

    def declares(self, name):
        """Why CMakeLists.txt accepts -D<name>, or None."""
        if name in self.options:
            return "option()"
        if name in self.cache:
            return "cache variable"
        if name == "BUILD_TESTING":
            return "include(CTest)" if self.ctest else None
        m = re.match(r"^CMAKE_(?:DISABLE|REQUIRE)_FIND_PACKAGE_(\w+)$", name)
        if m:
            return "find_package(%s)" % m.group(1) if m.group(1) in self.packages else None
        if name.startswith("CMAKE_"):
            return "CMake's own"
        m = re.match(r"^(\w+)_ROOT$", name)
        if m:
            return "find_package(%s)" % m.group(1) if m.group(1) in self.packages else None
        return None


# ---- recipe side -------------------------------------------------------------------------------


def version_tuple(text):
    parts = [int(p) for p in text.split(".") if p != ""]
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def string_value(node):
    """The text of a string literal, or of an f-string with its {fields} as '{}'; else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}"
            for v in node.values
        )
    return None


def call_name(call):
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def keyword(call, name):
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def directive_calls(body, name, when=()):
    """(call, enclosing `with when(...)` conditions) for directive `name` in a class body,
    looking through for/if/with blocks but not into methods."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            if call_name(stmt.value) == name:
                yield stmt.value, when
        if isinstance(stmt, ast.With):
            inner = list(when)
            for item in stmt.items:
                ctx = item.context_expr
                if isinstance(ctx, ast.Call) and call_name(ctx) == "when" and ctx.args:
                    inner.append(string_value(ctx.args[0]) or "{}")
            yield from directive_calls(stmt.body, name, tuple(inner))
        elif isinstance(stmt, (ast.For, ast.While, ast.If)):
            yield from directive_calls(stmt.body, name, when)
            yield from directive_calls(stmt.orelse, name, when)


def spec_name_and_minimum(spec):
    """('kokkos', '4.0') for 'kokkos@4.0:+cuda ...'; minimum None when the spec has no @A:."""
    m = re.match(r"^\s*([A-Za-z0-9_][A-Za-z0-9_.-]*)", spec)
    if not m:
        return None, None
    name = m.group(1)
    first = spec[m.end() :].split("^")[0]  # constraints on this node only
    v = re.search(r"@=?([0-9][0-9.]*)", first)  # the lower bound of @A:, @A:B or @A
    return name, (v.group(1).rstrip(".") if v else None)


def check_repo_yaml(repo_dir, failures):
    path = repo_dir / "repo.yaml"
    if not path.is_file():
        failures.add("%s is missing" % path)
        return
    lines = [l for l in path.read_text(encoding="utf-8").splitlines() if l.strip() and not l.lstrip().startswith("#")]
    if not lines or lines[0].rstrip() != "repo:":
        failures.add("%s: the first key must be 'repo:'" % path)
        return
    keys = {}
    for line in lines[1:]:
        m = re.match(r"^\s+([A-Za-z_]+)\s*:\s*(.*?)\s*$", line)
        if m:
            keys[m.group(1)] = m.group(2).strip("'\"")
    namespace = keys.get("namespace")
    if not namespace:
        failures.add("%s: repo.namespace is missing" % path)
    elif namespace != repo_dir.name:
        failures.add(
            "%s: namespace %r must be the directory's name %r (Package API v2 takes it from the path"
            " spack_repo/<namespace>)" % (path, namespace, repo_dir.name)
        )
    api = keys.get("api")
    if not api or not re.match(r"^v2\.\d+$", api):
        failures.add("%s: repo.api must be v2.N (the layout is Package API v2); found %r" % (path, api))


def check_recipe(recipe, cmake, failures):
    source = recipe.read_text(encoding="utf-8")
    try:
        tree = ast.parse(source, filename=str(recipe))
    except SyntaxError as e:
        failures.add("%s does not parse: %s" % (recipe, e))
        return

    imported = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                imported[alias.asname or alias.name] = node.module
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == CLASS]
    if not classes:
        failures.add("%s: no class %s (Spack's class name for package %r)" % (recipe, CLASS, PACKAGE))
        return
    cls = classes[0]
    bases = [b.id for b in cls.bases if isinstance(b, ast.Name)]
    for base, module in BASES.items():
        if base not in bases:
            failures.add("class %s must derive from %s (bases: %s)" % (CLASS, base, ", ".join(bases) or "none"))
        elif imported.get(base) != module:
            failures.add("%s must be imported from %s (Package API v2), not %s" % (base, module, imported.get(base)))

    # variants
    variants = {}
    for call, _ in directive_calls(cls.body, "variant"):
        name = string_value(call.args[0]) if call.args else None
        if name:
            variants[name] = call
    for name in REQUIRED_VARIANTS:
        if name not in variants:
            failures.add("variant(%r) is missing" % name)
    if "cuda" in variants:
        failures.add("variant('cuda') is redeclared: it comes from CudaPackage")
    known_variants = set(variants) | INHERITED_VARIANTS

    # versions
    versions = []
    for call, _ in directive_calls(cls.body, "version"):
        v = string_value(call.args[0]) if call.args else None
        if v is None:
            failures.add("version() at line %d: the version is not a string literal" % call.lineno)
        else:
            versions.append(v)
    if not versions:
        failures.add("the recipe declares no version()")
    if cmake.version is None:
        failures.add("%s: no project(%s VERSION X.Y.Z)" % (cmake.path, PACKAGE))
    for v in versions:
        if NUMBERED.match(v) and v != cmake.version:
            failures.add(
                "version(%r) but %s says project(%s VERSION %s)" % (v, cmake.path.name, PACKAGE, cmake.version)
            )

    # minimum Kokkos, without and with +cuda
    general, cuda = [], []
    for call, with_when in directive_calls(cls.body, "depends_on"):
        spec = string_value(call.args[0]) if call.args else None
        if spec is None:
            continue
        name, minimum = spec_name_and_minimum(spec)
        if name != "kokkos" or minimum is None:
            continue
        # Only bounds that hold for every build (no when) or for every +cuda build count.
        when = " ".join(list(with_when) + [string_value(keyword(call, "when")) or ""]).split()
        if not when:
            general.append(minimum)
        elif when == ["+cuda"]:
            cuda.append(minimum)
    if not general:
        failures.add('no unconditional depends_on("kokkos@X:"): the recipe would accept any Kokkos')
    cmake_general = cmake.kokkos_minimum()
    cmake_cuda = cmake.kokkos_minimum("Kokkos_ENABLE_CUDA")
    if cmake_general is None:
        failures.add("%s: no if(Kokkos_VERSION VERSION_LESS X) check to compare with" % cmake.path.name)
    recipe_general = max(general, key=version_tuple) if general else None
    if general and cmake_general and version_tuple(recipe_general) != version_tuple(cmake_general):
        failures.add(
            'depends_on("kokkos@%s:") but %s refuses Kokkos below %s'
            % (recipe_general, cmake.path.name, cmake_general)
        )
    if cmake_cuda is not None and general:
        recipe_cuda = max(general + cuda, key=version_tuple)
        if version_tuple(recipe_cuda) != version_tuple(cmake_cuda):
            failures.add(
                "with +cuda the recipe accepts Kokkos %s and up but %s refuses a Cuda Kokkos below %s"
                % (recipe_cuda, cmake.path.name, cmake_cuda)
            )

    # run dependencies of the installed scripts
    run_deps = set()
    for call, with_when in directive_calls(cls.body, "depends_on"):
        spec = string_value(call.args[0]) if call.args else None
        kind = keyword(call, "type")
        kinds = [string_value(e) for e in kind.elts] if isinstance(kind, (ast.Tuple, ast.List)) else [
            string_value(kind) if kind is not None else None]
        if spec and "run" in kinds and not with_when and keyword(call, "when") is None:
            run_deps.add(spec_name_and_minimum(spec)[0])
    for script, needs in (("sweep", ("python",)), ("plot", ("python", "py-matplotlib"))):
        if script in cmake.installed_scripts:
            for name in needs:
                if name not in run_deps:
                    failures.add(
                        'CMakeLists.txt installs scripts/%s but the recipe has no depends_on("%s", type="run")'
                        % (script, name)
                    )
    print("  run dependencies: %s" % (", ".join(sorted(run_deps)) or "none"))

    # cmake_args
    methods = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "cmake_args"]
    if not methods:
        failures.add("class %s has no cmake_args()" % CLASS)
        return
    names = {}
    for node in ast.walk(methods[0]):
        if isinstance(node, ast.Call) and call_name(node) in ("define", "define_from_variant"):
            if not node.args:
                continue
            name = string_value(node.args[0])
            if name is None or "{}" in name:
                failures.add(
                    "cmake_args line %d: %s() of a name that is not a string literal cannot be checked"
                    % (node.lineno, call_name(node))
                )
                continue
            names.setdefault(name, node.lineno)
            if call_name(node) == "define_from_variant":
                variant_node = node.args[1] if len(node.args) > 1 else keyword(node, "variant")
                variant = string_value(variant_node) if variant_node is not None else name.lower()
                if variant not in known_variants:
                    failures.add(
                        "cmake_args line %d: define_from_variant(%r, %r): the recipe has no variant %r"
                        % (node.lineno, name, variant, variant)
                    )
        else:
            text = string_value(node) if isinstance(node, (ast.Constant, ast.JoinedStr)) else None
            if text:
                for m in re.finditer(r"(?:^|\s)-D([A-Za-z_][A-Za-z0-9_]*)", text):
                    names.setdefault(m.group(1), getattr(node, "lineno", 0))
                if re.search(r"(?:^|\s)-D(?![A-Za-z_])", text):
                    failures.add(
                        "cmake_args line %d: a -D option whose name is not written out cannot be"
                        " checked" % getattr(node, "lineno", 0)
                    )
    if not names:
        failures.add("cmake_args sets no CMake variable")
    for name, line in sorted(names.items()):
        if name == "CMAKE_CXX_COMPILER":
            failures.add(
                "cmake_args line %d sets CMAKE_CXX_COMPILER: klmini keeps the host C++ compiler"
                " (toml++ must not go through nvcc) and routes only its Kokkos sources to the device"
                " compiler" % line
            )
            continue
        why = cmake.declares(name)
        if why is None:
            failures.add(
                "cmake_args line %d sets %s, which %s does not declare (no option() or"
                " set(... CACHE ...), and not a find_package root or CMake variable)"
                % (line, name, cmake.path.name)
            )
        else:
            print("  -D%s: %s" % (name, why))
    print("  versions: %s (project VERSION %s)" % (", ".join(versions), cmake.version))
    print(
        "  minimum Kokkos: %s, with +cuda %s (CMakeLists.txt: %s, %s)"
        % (recipe_general, max(general + cuda, key=version_tuple) if general else None, cmake_general, cmake_cuda)
    )


def main(argv):
    if len(argv) != 2:
        print("usage: %s REPO_ROOT" % argv[0], file=sys.stderr)
        return 2
    root = Path(argv[1])
    cmakelists = root / "CMakeLists.txt"
    spack_root = root / "packaging" / "spack" / "spack_repo"
    repos = sorted(p.parent for p in spack_root.glob("*/repo.yaml")) if spack_root.is_dir() else []
    if not cmakelists.is_file():
        print("no %s" % cmakelists, file=sys.stderr)
        return 2
    if len(repos) != 1:
        print("expected one package repository %s/<namespace>/repo.yaml, found %d" % (spack_root, len(repos)),
              file=sys.stderr)
        return 2
    recipe = repos[0] / "packages" / PACKAGE / "package.py"
    if not recipe.is_file():
        print("no %s" % recipe, file=sys.stderr)
        return 2

    failures = Failures()
    print("checking %s against %s" % (recipe, cmakelists))
    check_repo_yaml(repos[0], failures)
    check_recipe(recipe, CMakeProject(cmakelists), failures)
    if failures:
        for f in failures:
            print("FAIL: " + f)
        print("%d problem(s) in the Spack recipe" % len(failures))
        return 1
    print("spack recipe OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
