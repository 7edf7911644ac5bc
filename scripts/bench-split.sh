#!/usr/bin/env bash
# Would a workspace split pay? Builds two worktrees of HEAD below .bench/split/: `one` as committed (one crate)
# and `two`, a mechanical split of it: the lower layer (manifest, schema, escape, json_pointer, out_tree, versions
# and the other modules that use nothing above them) becomes a crate of its own, crates/capz-base, compiled from the
# same files (#[path]) and re-exported by the main crate under the same names, so no other file changes
# (pub(crate) becomes pub in the moved files; build.rs's schema packing moves with schema/). Then, in each tree,
# it times the incremental `cargo test --workspace --lib --tests --no-run` after a one-line change in src/lint/ and
# one in src/commands/ (a string literal toggled, so every run changes the code), ROUNDS times each, alternating
# the trees. The dev profile as committed, incremental compilation on (cargo's default for it).
#
#   scripts/bench-split.sh [ROUNDS]        (default 2) -> .bench/results/split/
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work="$repo/.bench/split"
results="$repo/.bench/results/split"
rounds=${1:-2}
mkdir -p "$work" "$results"
# The lines edited: a message of a lint rule and a line `version` prints (a one-word change in a function body that
# runs; toggled back and forth).
lint_file=src/lint/pools.rs lint_a='(defaulted to metadata.name)' lint_b='(defaulted from metadata.name)'
commands_file=src/commands/version.rs commands_a='Targets (management' commands_b='Targets: (management'
grep -qF "$lint_a" "$repo/$lint_file" && grep -qF "$commands_a" "$repo/$commands_file" ||
  { echo "bench-split: the lines it edits are gone: update the script" >&2; exit 2; }

for t in one two; do
  [ -d "$work/$t" ] || git -C "$repo" worktree add -q --detach "$work/$t" HEAD
  git -C "$work/$t" checkout -q --detach "$(git -C "$repo" rev-parse HEAD)"
  git -C "$work/$t" checkout -q -- . && git -C "$work/$t" clean -qfd
done

base_modules="aks_versions controller_fields cores escape exit fast_hash go_duration json_pointer out_tree report suggest versions manifest schema target_schemas"
(
  cd "$work/two"
  mkdir -p crates/capz-base/src
  {
    echo '//! The lower layer of kubectl-capz as a crate of its own (scripts/bench-split.sh; measurement only).'
    for m in $base_modules; do
      if [ -d "src/$m" ]; then echo "#[path = \"../../../src/$m/mod.rs\"] pub mod $m;"
      else echo "#[path = \"../../../src/$m.rs\"] pub mod $m;"; fi
    done
    echo '#[cfg(test)] #[path = "../../../src/test_files.rs"] mod test_files;'
  } >crates/capz-base/src/lib.rs
  for m in $base_modules; do
    sed -i "s/^pub mod $m;/pub use capz_base::$m;/" src/lib.rs
    p=src/$m; [ -d "$p" ] || p=src/$m.rs
    { grep -rl 'pub(crate)' "$p" || true; } | xargs -r sed -i 's/pub(crate)/pub/g'
  done
  python3 - <<'EOF'
t = open('Cargo.toml').read()
deps = t[t.index('[dependencies]'):t.index('[dev-dependencies]')]
dev = t[t.index('[dev-dependencies]'):t.index('\n[profile')]
open('crates/capz-base/Cargo.toml', 'w').write(
    '[package]\nname = "capz-base"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n[lib]\ndoctest = false\n\n'
    + deps + '\n' + dev + '\n[build-dependencies]\nserde_json = { version = "1", features = ["preserve_order"] }\n')
t = t.replace('[dependencies]\n', '[dependencies]\ncapz-base = { path = "crates/capz-base" }\n', 1)
t = t.replace('[package]', '[workspace]\nmembers = ["crates/capz-base"]\n\n[package]', 1)
open('Cargo.toml', 'w').write(t)
b = open('build.rs').read()
pack = b.replace(
    'let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));',
    'let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR")).join("../..");')
pack = pack.replace(
    '    for dir in ["flavors", "clusterclasses", "schemas"] {\n        println!("cargo:rerun-if-changed={dir}");\n    }\n'
    '    link_binary_at_a_fixed_address();\n', '    println!("cargo:rerun-if-changed=../../schemas");\n')
pack = pack.replace('rerun-if-changed=src/params/values.schema.json', 'rerun-if-changed=../../src/params/values.schema.json')
pack = pack.replace('pub(crate) static GVK_FOLDERS', 'pub static GVK_FOLDERS')
assert pack.count('../..') >= 3, 'build.rs changed: update scripts/bench-split.sh'
open('crates/capz-base/build.rs', 'w').write(pack)
main = b[:b.index('    let manifest_dir')] + '}\n' + b[b.index('/// Start-up: a position-independent'):b.index('/// Schema loading')]
main = main.replace('["flavors", "clusterclasses", "schemas"]', '["flavors", "clusterclasses"]')
main = main.replace('use std::collections::HashMap;\nuse std::fmt::Write as _;\nuse std::path::{Path, PathBuf};\n', '')
open('build.rs', 'w').write(main)
EOF
)

build() { # TREE LABEL: one timed build, wall/user/sys/KiB appended to $results/LABEL.txt
  (cd "$work/$1" && /usr/bin/time -f "%e %U %S %M" -a -o "$results/$2.txt" \
    env CARGO_TARGET_DIR="$work/target-$1" cargo test --workspace --lib --tests --no-run >"$results/$2.log" 2>&1) ||
    { echo "bench-split: $1 failed ($2), see $results/$2.log" >&2; tail -20 "$results/$2.log" >&2; exit 2; }
  echo "  $2: $(tail -n 1 "$results/$2.txt") (wall user sys KiB)" >&2
}
toggle() { # TREE FILE A B: A -> B, or B -> A (every occurrence)
  local f="$work/$1/$2"
  if grep -qF "$3" "$f"; then A=$3 B=$4 perl -pi -e 's/\Q$ENV{A}\E/$ENV{B}/g' "$f"
  else A=$4 B=$3 perl -pi -e 's/\Q$ENV{A}\E/$ENV{B}/g' "$f"; fi
}
lint() { toggle "$1" "$lint_file" "$lint_a" "$lint_b"; }
commands() { toggle "$1" "$commands_file" "$commands_a" "$commands_b"; }
for t in one two; do
  rm -f "$results/$t-"*.txt
  build "$t" "$t-cold"
done
for ((i = 0; i < rounds; i++)); do
  for t in one two; do
    lint "$t"; build "$t" "$t-lint"
    commands "$t"; build "$t" "$t-commands"
  done
done
for f in "$results"/*.txt; do echo "$(basename "$f" .txt): $(tr '\n' ';' <"$f")"; done
