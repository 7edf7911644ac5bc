// Command kustomize-edit-oracle runs, for each case, the `kustomize edit` command sequence that Argo CD's
// repo-server runs for the kustomize options of an Application source (argo-cd util/kustomize/kustomize.go,
// (*kustomize).Build: nameprefix, namesuffix, image, replicas, label, annotation, namespace, then the patches it
// writes into the kustomization itself, then components), with the real kustomize binary given as the first
// argument, then `kustomize build`, and prints what it produced, as JSON.
//
// Input (stdin): a JSON array of cases {"name", "files" (path -> text), "path" (the app's directory),
// "kustomize" (the options, as in spec.source.kustomize), "env" (Argo CD's ARGOCD_APP_* variables)}.
// Output (stdout): the same cases, each with "commands" (the argv of each command run, the binary as
// "kustomize"), and either "kustomization" (the app's kustomization file after the edits) and "build"
// (kustomize build's stdout), or "error" (the failing step's message).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

type replica struct {
	Name  string          `json:"name"`
	Count json.RawMessage `json:"count"`
}

type options struct {
	NamePrefix                string            `json:"namePrefix,omitempty"`
	NameSuffix                string            `json:"nameSuffix,omitempty"`
	Images                    []string          `json:"images,omitempty"`
	CommonLabels              map[string]string `json:"commonLabels,omitempty"`
	CommonAnnotations         map[string]string `json:"commonAnnotations,omitempty"`
	ForceCommonLabels         bool              `json:"forceCommonLabels,omitempty"`
	ForceCommonAnnotations    bool              `json:"forceCommonAnnotations,omitempty"`
	Namespace                 string            `json:"namespace,omitempty"`
	CommonAnnotationsEnvsubst bool              `json:"commonAnnotationsEnvsubst,omitempty"`
	Replicas                  []replica         `json:"replicas,omitempty"`
	Patches                   []any             `json:"patches,omitempty"`
	Components                []string          `json:"components,omitempty"`
	IgnoreMissingComponents   bool              `json:"ignoreMissingComponents,omitempty"`
	LabelWithoutSelector      bool              `json:"labelWithoutSelector,omitempty"`
	LabelIncludeTemplates     bool              `json:"labelIncludeTemplates,omitempty"`
}

type testCase struct {
	Name      string            `json:"name"`
	Files     map[string]string `json:"files"`
	Path      string            `json:"path"`
	Kustomize json.RawMessage   `json:"kustomize"`
	Env       map[string]string `json:"env"`
}

type row struct {
	testCase
	Commands      [][]string `json:"commands"`
	Kustomization *string    `json:"kustomization,omitempty"`
	Build         *string    `json:"build,omitempty"`
	Error         *string    `json:"error,omitempty"`
}

// envsubst is Argo CD's Env.Envsubst: os.Expand over the given variables, `$$` kept as `$`.
func envsubst(env map[string]string, s string) string {
	return os.Expand(s, func(name string) string {
		if name == "$" {
			return "$"
		}
		return env[name]
	})
}

// sortedPairs is `name:value` for each entry (Argo CD iterates the map; the order does not change the result).
func sortedPairs(m map[string]string) []string {
	var out []string
	for name, value := range m {
		out = append(out, name+":"+value)
	}
	sort.Strings(out)
	return out
}

func run(binary, dir string, args []string, commands *[][]string) error {
	*commands = append(*commands, append([]string{"kustomize"}, args...))
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + os.TempDir(), "PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		// kustomize prints the command's usage after its error: the error is the part before it.
		message, _, _ := strings.Cut(string(out), "\nUsage:")
		return fmt.Errorf("kustomize %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(message))
	}
	return nil
}

func kustomizationFile(dir string) string {
	for _, name := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return name
		}
	}
	return ""
}

// edit runs Argo CD's sequence in dir (the app's directory of the checkout at root).
func edit(binary, root, dir string, opts options, env map[string]string, commands *[][]string) error {
	if opts.NamePrefix != "" {
		if err := run(binary, dir, []string{"edit", "set", "nameprefix", "--", opts.NamePrefix}, commands); err != nil {
			return err
		}
	}
	if opts.NameSuffix != "" {
		if err := run(binary, dir, []string{"edit", "set", "namesuffix", "--", opts.NameSuffix}, commands); err != nil {
			return err
		}
	}
	if len(opts.Images) > 0 {
		args := []string{"edit", "set", "image"}
		for _, image := range opts.Images {
			args = append(args, envsubst(env, image))
		}
		if err := run(binary, dir, args, commands); err != nil {
			return err
		}
	}
	if len(opts.Replicas) > 0 {
		args := []string{"edit", "set", "replicas"}
		for _, r := range opts.Replicas {
			// intstr.IntOrString: a number, or a string Atoi reads.
			var count int
			if err := json.Unmarshal(r.Count, &count); err != nil {
				var text string
				if err := json.Unmarshal(r.Count, &text); err != nil {
					return fmt.Errorf("replica count %s", string(r.Count))
				}
				n, err := strconv.Atoi(text)
				if err != nil {
					return fmt.Errorf("expected integer value for count. Received: %s", text)
				}
				count = n
			}
			args = append(args, fmt.Sprintf("%s=%d", r.Name, count))
		}
		if err := run(binary, dir, args, commands); err != nil {
			return err
		}
	}
	if len(opts.CommonLabels) > 0 {
		args := []string{"edit", "add", "label"}
		if opts.ForceCommonLabels {
			args = append(args, "--force")
		}
		if opts.LabelWithoutSelector {
			args = append(args, "--without-selector")
		}
		if opts.LabelIncludeTemplates {
			args = append(args, "--include-templates")
		}
		labels := map[string]string{}
		for name, value := range opts.CommonLabels {
			labels[name] = envsubst(env, value)
		}
		if err := run(binary, dir, append(args, sortedPairs(labels)...), commands); err != nil {
			return err
		}
	}
	if len(opts.CommonAnnotations) > 0 {
		args := []string{"edit", "add", "annotation"}
		if opts.ForceCommonAnnotations {
			args = append(args, "--force")
		}
		annotations := opts.CommonAnnotations
		if opts.CommonAnnotationsEnvsubst {
			annotations = map[string]string{}
			for name, value := range opts.CommonAnnotations {
				annotations[name] = envsubst(env, value)
			}
		}
		if err := run(binary, dir, append(args, sortedPairs(annotations)...), commands); err != nil {
			return err
		}
	}
	if opts.Namespace != "" {
		if err := run(binary, dir, []string{"edit", "set", "namespace", "--", opts.Namespace}, commands); err != nil {
			return err
		}
	}
	if len(opts.Patches) > 0 {
		name := kustomizationFile(dir)
		if name == "" {
			return fmt.Errorf("kustomization file not found in the path")
		}
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var k map[string]any
		if err := yaml.Unmarshal(data, &k); err != nil {
			return err
		}
		if existing, ok := k["patches"]; ok {
			list, ok := existing.([]any)
			if !ok {
				return fmt.Errorf("expected 'patches' field in kustomization.yaml to be []any, but got %T", existing)
			}
			k["patches"] = append(list, opts.Patches...)
		} else {
			k["patches"] = opts.Patches
		}
		out, err := yaml.Marshal(k)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return err
		}
		*commands = append(*commands, []string{"# kustomization.yaml updated with patches"})
	}
	if len(opts.Components) > 0 {
		found := opts.Components
		if opts.IgnoreMissingComponents {
			found = nil
			for _, c := range opts.Components {
				if _, err := os.Stat(filepath.Join(dir, c)); err == nil {
					found = append(found, c)
				}
			}
		}
		if len(found) > 0 {
			if err := run(binary, dir, append([]string{"edit", "add", "component"}, found...), commands); err != nil {
				return err
			}
		}
	}
	return nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: kustomize-edit-oracle KUSTOMIZE_BINARY < cases.input.json")
		os.Exit(2)
	}
	binary, err := filepath.Abs(os.Args[1])
	if err != nil {
		panic(err)
	}
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	var rows []row
	for _, c := range cases {
		r := row{testCase: c, Commands: [][]string{}}
		root, err := os.MkdirTemp("", "kustomize-edit-oracle-")
		if err != nil {
			panic(err)
		}
		for name, text := range c.Files {
			path := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				panic(err)
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				panic(err)
			}
		}
		var opts options
		if err := json.Unmarshal(c.Kustomize, &opts); err != nil {
			panic(fmt.Sprintf("%s: %v", c.Name, err))
		}
		dir := filepath.Join(root, c.Path)
		if err := edit(binary, root, dir, opts, c.Env, &r.Commands); err != nil {
			message := strings.ReplaceAll(err.Error(), root, ".")
			r.Error = &message
		} else {
			data, err := os.ReadFile(filepath.Join(dir, kustomizationFile(dir)))
			if err != nil {
				panic(err)
			}
			text := string(data)
			r.Kustomization = &text
			cmd := exec.Command(binary, "build", c.Path)
			cmd.Dir = root
			r.Commands = append(r.Commands, []string{"kustomize", "build", c.Path})
			out, err := cmd.Output()
			if err != nil {
				message := fmt.Sprintf("kustomize build: %v", err)
				if exit, ok := err.(*exec.ExitError); ok {
					message += ": " + strings.ReplaceAll(strings.TrimSpace(string(exit.Stderr)), root, ".")
				}
				r.Error = &message
			} else {
				build := string(out)
				r.Build = &build
			}
		}
		os.RemoveAll(root)
		rows = append(rows, r)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rows); err != nil {
		panic(err)
	}
}
