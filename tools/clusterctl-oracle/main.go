// Command clusterctl-oracle runs clusterctl's real template processor (yamlprocessor.SimpleProcessor,
// which drives github.com/drone/envsubst/v2) on test cases and prints what it produced, as JSON.
//
// Input (stdin): a JSON array of cases {"name", "input", "env"} where env maps a variable name to its
// value (absent = unset). Output (stdout): the same cases, each with
//   - "variables": GetVariableMap (name -> default, null = required) or "variables_error";
//   - "process":   Process with a variables client that fails for unset names (clusterctl's missing check);
//   - "eval":      envsubst.Eval on the raw input with "" for unset names (no legacy ${ VAR } rewrite).
// Each result is {"output": ...} or {"error": ...} or {"panic": ...}; "output_utf8" is false when the
// output bytes are not valid UTF-8 (they are then given as "output_bytes", a list of byte values).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"unicode/utf8"

	"github.com/drone/envsubst/v2"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/yamlprocessor"
)

type testCase struct {
	Name  string            `json:"name"`
	Input string            `json:"input"`
	Env   map[string]string `json:"env"`
}

type result struct {
	Output      *string `json:"output,omitempty"`
	OutputBytes []int   `json:"output_bytes,omitempty"`
	Error       *string `json:"error,omitempty"`
	Panic       *string `json:"panic,omitempty"`
}

type row struct {
	Name           string             `json:"name"`
	Input          string             `json:"input"`
	Env            map[string]string  `json:"env"`
	Variables      map[string]*string `json:"variables"`
	VariablesError *string            `json:"variables_error,omitempty"`
	Process        result             `json:"process"`
	Eval           result             `json:"eval"`
}

func ptr(s string) *string { return &s }

func run(f func() (string, error)) (r result) {
	defer func() {
		if p := recover(); p != nil {
			r = result{Panic: ptr(fmt.Sprint(p))}
		}
	}()
	out, err := f()
	if err != nil {
		return result{Error: ptr(err.Error())}
	}
	if !utf8.ValidString(out) {
		bytes := make([]int, len(out))
		for i := 0; i < len(out); i++ {
			bytes[i] = int(out[i])
		}
		return result{OutputBytes: bytes}
	}
	return result{Output: ptr(out)}
}

func main() {
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		fmt.Fprintln(os.Stderr, "reading cases:", err)
		os.Exit(2)
	}
	p := yamlprocessor.NewSimpleProcessor()
	rows := make([]row, 0, len(cases))
	for _, c := range cases {
		env := c.Env
		if env == nil {
			env = map[string]string{}
		}
		r := row{Name: c.Name, Input: c.Input, Env: env}
		vars, err := p.GetVariableMap([]byte(c.Input))
		if err != nil {
			r.VariablesError = ptr(err.Error())
		} else {
			r.Variables = vars
		}
		r.Process = run(func() (string, error) {
			out, err := p.Process([]byte(c.Input), func(name string) (string, error) {
				if v, ok := env[name]; ok {
					return v, nil
				}
				return "", fmt.Errorf("variable %q is not set", name)
			})
			if err != nil {
				return "", err
			}
			return string(out), nil
		})
		r.Eval = run(func() (string, error) {
			return envsubst.Eval(c.Input, func(name string) string { return env[name] })
		})
		rows = append(rows, r)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rows); err != nil {
		fmt.Fprintln(os.Stderr, "writing rows:", err)
		os.Exit(2)
	}
}
