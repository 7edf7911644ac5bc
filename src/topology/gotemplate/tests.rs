//! Unit tests of the template engine: parsing, execution, functions and printing.

use serde_json::{Value, json};

use super::*;

fn run(src: &str, data: Value) -> Result<String, String> {
    render(src, &GoValue::from_json(&data)).map_err(|e| e.message)
}

#[test]
fn builtin_field_access_and_missing_keys() {
    let data = json!({"builtin": {"cluster": {"name": "c1", "namespace": "ns"}}, "nullish": null});
    assert_eq!(run("{{ .builtin.cluster.name }}-x", data.clone()).unwrap(), "c1-x");
    assert_eq!(run("{{ .builtin.machinePool.class }}", data.clone()).unwrap(), "<no value>");
    let err = run("{{ .nullish.x }}", data).unwrap_err();
    assert!(err.contains("nil pointer evaluating interface {}.x"), "{err}");
}

#[test]
fn floats_print_like_go() {
    assert_eq!(format_float_g(3.0), "3");
    assert_eq!(format_float_g(2.5), "2.5");
    assert_eq!(format_float_g(100000.0), "100000");
    assert_eq!(format_float_g(1000000.0), "1e+06");
    assert_eq!(format_float_g(1234567.0), "1.234567e+06");
    assert_eq!(format_float_g(0.0001), "0.0001");
    assert_eq!(format_float_g(0.00001), "1e-05");
    assert_eq!(format_float_g(-12.75), "-12.75");
}

#[test]
fn control_structures() {
    let data = json!({"pools": ["a", "b"], "m": {"z": 1, "a": 2}, "on": true, "n": 0});
    assert_eq!(run("{{ range $i, $p := .pools }}{{ $i }}={{ $p }};{{ end }}", data.clone()).unwrap(), "0=a;1=b;");
    assert_eq!(run("{{ range $k, $v := .m }}{{ $k }}{{ $v }}{{ end }}", data.clone()).unwrap(), "a2z1");
    assert_eq!(run("{{ if .n }}x{{ else if .on }}y{{ else }}z{{ end }}", data.clone()).unwrap(), "y");
    assert_eq!(run("{{ with .missing }}x{{ else }}none{{ end }}", data.clone()).unwrap(), "none");
    assert_eq!(run("{{ range .none }}x{{ else }}empty{{ end }}", data.clone()).unwrap(), "empty");
    assert_eq!(
        run("{{ range .pools }}{{ if eq . \"b\" }}{{ break }}{{ end }}{{ . }}{{ end }}", data.clone()).unwrap(),
        "a"
    );
    assert_eq!(run("a  {{- \"b\" -}}  c", data.clone()).unwrap(), "abc");
    assert_eq!(run("{{/* comment */}}x{{- /* c2 */ -}} y", data.clone()).unwrap(), "xy");
    assert_eq!(run("{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}", data).unwrap(), "2");
}

#[test]
fn go_comparison_rules() {
    let data = json!({"replicas": 3});
    // JSON numbers are float64 in Go: comparing with an int literal fails like in CAPI.
    let err = run("{{ eq .replicas 3 }}", data.clone()).unwrap_err();
    assert!(err.contains("incompatible types for comparison"), "{err}");
    assert_eq!(run("{{ eq .replicas 3.0 }}", data.clone()).unwrap(), "true");
    assert_eq!(run("{{ gt (int .replicas) 2 }}", data.clone()).unwrap(), "true");
    assert_eq!(run("{{ eq \"a\" \"b\" \"a\" }}", data).unwrap(), "true");
}

#[test]
fn sprig_functions() {
    let data = json!({"name": "My-Cluster", "list": ["x", "y"], "empty": ""});
    assert_eq!(run("{{ .name | lower | quote }}", data.clone()).unwrap(), "\"my-cluster\"");
    assert_eq!(run("{{ .empty | default \"dflt\" }}", data.clone()).unwrap(), "dflt");
    assert_eq!(run("{{ join \",\" .list }}", data.clone()).unwrap(), "x,y");
    assert_eq!(run("{{ .list | toJson }}", data.clone()).unwrap(), "[\"x\",\"y\"]");
    assert_eq!(run("{{ add 1 2 3 }} {{ sub 5 2 }}", data.clone()).unwrap(), "6 3");
    assert_eq!(run("{{ ternary \"a\" \"b\" true }}", data.clone()).unwrap(), "a");
    assert_eq!(run("{{ \"abc\" | b64enc }}", data.clone()).unwrap(), "YWJj");
    assert_eq!(run("{{ printf \"%s-%03d\" .name 7 }}", data.clone()).unwrap(), "My-Cluster-007");
    assert_eq!(run("{{ replace \"-\" \"_\" .name | upper }}", data.clone()).unwrap(), "MY_CLUSTER");
    assert_eq!(run("{{ trimPrefix \"My-\" .name }}", data.clone()).unwrap(), "Cluster");
    assert_eq!(run("{{ semverCompare \">=1.30.0\" \"v1.31.2\" }}", data).unwrap(), "true");
}

#[test]
fn parse_and_exec_errors_name_the_place() {
    let err = run("line1\n{{ nosuch .x }}", json!({})).unwrap_err();
    assert_eq!(err, "template: tpl:2: function \"nosuch\" not defined");
    let err = run("{{ if .x }}", json!({})).unwrap_err();
    assert!(err.starts_with("template: tpl:1: unexpected EOF"), "{err}");
    let err = run("x\n  {{ .a.b.c }}", json!({"a": {"b": null}})).unwrap_err();
    assert_eq!(err, "template: tpl:2:7: executing \"tpl\" at <.a.b.c>: nil pointer evaluating interface {}.c");
}

/// Ten `%1000000d` verbs asked for 10 MB of padding, each within Go's width limit: the output
/// limit stops it with an error instead of building it.
#[test]
fn printf_widths_are_bounded_by_the_output_limit() {
    let verbs = "%1000000d".repeat(10);
    let args = vec![GoValue::Int(1); 10];
    let err = sprintf(&verbs, &args).unwrap_err();
    assert_eq!(err, "printf: the result would be longer than 4194304 bytes (kubectl-capz's limit)");
    assert_eq!(sprintf("%1000000d", &args[..1]).unwrap().len(), 1_000_000);
    // Go refuses widths above its own limit (`%!(NOVERB)` eats the rest of the format).
    assert_eq!(sprintf("%99999999d|", &args[..1]).unwrap(), "%!(NOVERB)%!(EXTRA int=1)");
}

// ---- Limits: each template below crashed, hung or allocated without bound before its limit.

fn run_plain(src: &str) -> Result<String, String> {
    run(src, json!({"name": "x"}))
}

#[test]
fn repeat_indent_and_replace_bombs_stop_at_the_string_limit() {
    // repeat: 8 GB; indent: 1 GB of padding per line; replace "" inserts between every character.
    for src in [
        r#"{{ repeat 1000000000 "xxxxxxxx" }}"#,
        r#"{{ indent 1000000000 "a" }}"#,
        r#"{{ nindent 1000000000 "a" }}"#,
        r#"{{ $s := repeat 4000000 "x" }}{{ replace "" $s $s }}"#,
    ] {
        let err = run_plain(src).unwrap_err();
        assert!(err.contains("bytes (kubectl-capz's limit)"), "{src}: {err}");
    }
    assert_eq!(run_plain(r#"{{ repeat -1 "x" }}"#).unwrap_err().rsplit(": ").next(), Some("negative Repeat count"));
}

#[test]
fn until_seq_and_range_bombs_stop_at_their_limits() {
    for (src, want) in [
        ("{{ until 10000000000 }}", "more than 1048576 items"),
        ("{{ untilStep 0 9223372036854775807 1 }}", "more than 1048576 items"),
        ("{{ seq 10000000000 }}", "more than 1048576 items"),
        ("{{ range 1000000000000 }}{{ end }}", "more than 1000000 iterations"),
        ("{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}", "more than 1000000 iterations"),
        ("{{ range until 1000 }}{{ repeat 100000 \"x\" }}{{ end }}", "the output: the result would be longer"),
    ] {
        let err = run_plain(src).unwrap_err();
        assert!(err.contains(want), "{src}: {err}");
    }
    // Go wraps around past int64 and never ends; here it is an error.
    let err = run_plain("{{ untilStep 0 9223372036854775807 4611686018427387904 }}").unwrap_err();
    assert!(err.contains("overflows int64"), "{err}");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let ifs = format!("{}x{}", "{{ if true }}".repeat(100_000), "{{ end }}".repeat(100_000));
    let parens = format!("{{{{ {}1{} }}}}", "(".repeat(100_000), ")".repeat(100_000));
    for src in [ifs, parens] {
        let err = run_plain(&src).unwrap_err();
        assert!(err.contains("nested more than 100 deep"), "{err}");
    }
    let ok = format!("{}x{}", "{{ if true }}".repeat(90), "{{ end }}".repeat(90));
    assert_eq!(run_plain(&ok).unwrap(), "x");
    let recursive = r#"{{ define "a" }}{{ template "a" . }}{{ end }}{{ template "a" . }}"#;
    let err = run_plain(recursive).unwrap_err();
    assert!(err.contains("exceeded maximum template depth (100, kubectl-capz's limit"), "{err}");
}

#[test]
fn self_holding_maps_and_deep_values_are_errors() {
    // A map set into itself: Go accepts it and loops forever printing it.
    let err = run_plain(r#"{{ $d := dict }}{{ $_ := set $d "self" (list $d) }}{{ $d }}"#).unwrap_err();
    assert!(err.contains("holds the map itself"), "{err}");
    let err = run_plain(r#"{{ $d := dict "a" 1 }}{{ $_ := merge $d (dict "b" $d) }}"#).unwrap_err();
    assert!(err.contains("holds the map itself"), "{err}");
    // Lists nested 5000 deep through a variable.
    let err = run_plain("{{ $x := list }}{{ range until 5000 }}{{ $x = list $x }}{{ end }}").unwrap_err();
    assert!(err.contains("more than 100 deep"), "{err}");
    // A chain of 200,000 maps, each set into the previous one: dropping it recursed once per map,
    // printing it once per level.
    let chain = |n: usize| {
        format!(
            r#"{{{{ $x := dict }}}}{{{{ $root := $x }}}}{{{{ range until {n} }}}}{{{{ $n := dict }}}}{{{{ $_ := set $x "c" $n }}}}{{{{ $x = $n }}}}{{{{ end }}}}"#
        )
    };
    assert_eq!(run_plain(&format!("{}done", chain(200_000))).unwrap(), "done");
    let chain = chain(500);
    for print in [
        "{{ $root }}",
        "{{ toJson $root }}",
        "{{ printf \"%v\" $root }}",
        "{{ deepCopy $root }}",
        "{{ toString $root }}",
    ] {
        let err = run_plain(&format!("{chain}{print}")).unwrap_err();
        assert!(err.contains("more than 100 deep"), "{print}: {err}");
    }
}

#[test]
fn integer_functions_wrap_like_go_instead_of_panicking() {
    for (src, want) in [
        ("{{ div -9223372036854775808 -1 }}", "-9223372036854775808"),
        ("{{ mod -9223372036854775808 -1 }}", "0"),
        ("{{ add 9223372036854775807 1 }}", "-9223372036854775808"),
        ("{{ mul 9223372036854775807 2 }}", "-2"),
        ("{{ sub -9223372036854775808 1 }}", "9223372036854775807"),
        ("{{ add1 9223372036854775807 }}", "-9223372036854775808"),
        ("{{ trunc 2 \"héllo\" }}", "h\u{fffd}"),
        ("{{ substr 1 3 \"héllo\" }}", "é"),
        ("{{ abbrev 5 \"héllo wörld\" }}", "h\u{fffd}..."),
    ] {
        assert_eq!(run_plain(src).unwrap(), want, "{src}");
    }
}

/// CAPI's naming templates: no sprig, `missingkey=error` (messages recorded from CAPI v1.10.10 by
/// the plan referee, /work/scratch/plan/gotemplate-needs.md).
#[test]
fn naming_template_options() {
    let naming = Options { go_builtins_only: true, missing_key_error: true };
    let data = GoValue::from_json(&json!({"cluster": {"name": "c1"}, "machineDeployment": {"topologyName": "md"}}));
    let name = "template name generator";
    let tpl = Template::parse_with(name, "{{ .cluster.name }}-{{ .machineDeployment.nope }}", naming).unwrap();
    assert_eq!(
        tpl.execute(&data).unwrap_err().message,
        "template: template name generator:1:41: executing \"template name generator\" at <.machineDeployment.nope>: \
         map has no entry for key \"nope\""
    );
    let err = Template::parse_with(name, "{{ .cluster.name | upper }}", naming).unwrap_err();
    assert_eq!(err.message, "template: template name generator:1: function \"upper\" not defined");
    let ok = Template::parse_with(name, "{{ printf \"%s-x\" .cluster.name }}", naming).unwrap();
    assert_eq!(ok.execute(&data).unwrap(), "c1-x");
}
