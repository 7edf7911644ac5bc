// Command gotemplate-oracle runs Go's text/template with sprig's hermetic functions exactly as
// Cluster API runs ClusterClass valueFrom.template and enabledIf
// (template.New("tpl").Funcs(sprig.HermeticTxtFuncMap())) and records what it prints.
//
// Input (stdin): JSON lines {"tpl": "..."}; the data is tests/fixtures/topology/gotemplate_data.json
// (first argument), decoded with encoding/json as CAPI decodes variables (numbers are float64).
// Output (stdout): JSON lines {"tpl": ..., "out": ...} or {"tpl": ..., "err": ...}.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"text/template"

	"github.com/Masterminds/sprig/v3"
)

func main() {
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	dec := json.NewDecoder(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for {
		var c struct {
			Tpl string `json:"tpl"`
		}
		if err := dec.Decode(&c); err != nil {
			break
		}
		// Fresh data per case: templates may mutate maps (set, unset, merge).
		var data map[string]interface{}
		if err := json.Unmarshal(raw, &data); err != nil {
			panic(err)
		}
		res := map[string]string{"tpl": c.Tpl}
		t, err := template.New("tpl").Funcs(sprig.HermeticTxtFuncMap()).Parse(c.Tpl)
		if err != nil {
			res["err"] = err.Error()
		} else {
			var buf bytes.Buffer
			if err := t.Execute(&buf, data); err != nil {
				res["err"] = err.Error()
			} else {
				res["out"] = buf.String()
			}
		}
		b, _ := json.Marshal(res)
		fmt.Fprintln(out, string(b))
	}
}
