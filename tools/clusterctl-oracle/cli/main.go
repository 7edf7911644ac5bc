// Command cli runs the real clusterctl binary on the `generate cluster --from` scenarios of
// cli-scenarios.json and prints what it did (stdout, stderr, exit code) as JSON.
//
// Usage: cli CLUSTERCTL SCENARIOS.json FIXTURES_DIR > cli-cases.json
// Each scenario runs as
//
//	clusterctl generate cluster NAME --from FIXTURES_DIR/TEMPLATE -n NS [--kubernetes-version V]
//	  [--config FILE] [--list-variables]
//
// with only the scenario's variables in the environment (plus PATH and a scratch HOME).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

type scenario struct {
	Name              string            `json:"name"`
	Template          string            `json:"template"`
	ClusterName       string            `json:"cluster_name"`
	Namespace         string            `json:"namespace"`
	KubernetesVersion *string           `json:"kubernetes_version"`
	Env               map[string]string `json:"env"`
	Config            *string           `json:"config"`
	ListVariables     bool              `json:"list_variables"`
}

type outcome struct {
	scenario
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode int    `json:"exit_code"`
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: cli CLUSTERCTL SCENARIOS.json FIXTURES_DIR")
		os.Exit(2)
	}
	clusterctl, scenariosPath, fixtures := os.Args[1], os.Args[2], os.Args[3]
	data, err := os.ReadFile(scenariosPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var scenarios []scenario
	if err := json.Unmarshal(data, &scenarios); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	scratch, err := os.MkdirTemp("", "clusterctl-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer os.RemoveAll(scratch)
	outcomes := make([]outcome, 0, len(scenarios))
	for i, s := range scenarios {
		home := filepath.Join(scratch, fmt.Sprintf("home-%d", i))
		if err := os.MkdirAll(home, 0o700); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		args := []string{"generate", "cluster", s.ClusterName, "--from", filepath.Join(fixtures, s.Template), "-n", s.Namespace}
		if s.KubernetesVersion != nil {
			args = append(args, "--kubernetes-version", *s.KubernetesVersion)
		}
		if s.Config != nil {
			config := filepath.Join(home, "clusterctl.yaml")
			if err := os.WriteFile(config, []byte(*s.Config), 0o600); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			args = append(args, "--config", config)
		}
		if s.ListVariables {
			args = append(args, "--list-variables")
		}
		cmd := exec.Command(clusterctl, args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "CLUSTERCTL_DISABLE_VERSIONCHECK=true"}
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := 0
		if err := cmd.Run(); err != nil {
			exit, ok := err.(*exec.ExitError)
			if !ok {
				fmt.Fprintln(os.Stderr, s.Name, err)
				os.Exit(2)
			}
			code = exit.ExitCode()
		}
		outcomes = append(outcomes, outcome{scenario: s, Stdout: stdout.String(), Stderr: stderr.String(), ExitCode: code})
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(outcomes); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
