// Command cli runs the real clusterctl binary on the `generate cluster --from` scenarios of
// cli-scenarios.json and prints what it did (stdout, stderr, exit code) as JSON.
//
// Usage: cli CLUSTERCTL SCENARIOS.json FIXTURES_DIR > cli-cases.json
// Each scenario runs as
//
//	clusterctl generate cluster NAME --from FIXTURES_DIR/TEMPLATE -n NS [--kubernetes-version V]
//	  [--config FILE] [--list-variables] [--worker-machine-count N] [--control-plane-machine-count N]
//
// with only the scenario's variables in the environment (plus PATH, a scratch HOME holding the
// scenario's home_files, and XDG_CONFIG_HOME as the scenario says).
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
	// HomeFiles are written below the scratch HOME (path relative to it -> content), e.g. a
	// clusterctl config file that clusterctl finds by itself: `.cluster-api/clusterctl.yaml`, or
	// `.config/cluster-api/clusterctl.yaml` when XDGConfigHome is "" (then unset).
	HomeFiles map[string]string `json:"home_files,omitempty"`
	// XDGConfigHome is XDG_CONFIG_HOME relative to HOME; nil means HOME itself, "" leaves it unset.
	XDGConfigHome            *string `json:"xdg_config_home,omitempty"`
	WorkerMachineCount       *int64  `json:"worker_machine_count,omitempty"`
	ControlPlaneMachineCount *int64  `json:"control_plane_machine_count,omitempty"`
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
		if s.WorkerMachineCount != nil {
			args = append(args, "--worker-machine-count", fmt.Sprint(*s.WorkerMachineCount))
		}
		if s.ControlPlaneMachineCount != nil {
			args = append(args, "--control-plane-machine-count", fmt.Sprint(*s.ControlPlaneMachineCount))
		}
		for rel, content := range s.HomeFiles {
			path := filepath.Join(home, rel)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
		cmd := exec.Command(clusterctl, args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CLUSTERCTL_DISABLE_VERSIONCHECK=true"}
		switch {
		case s.XDGConfigHome == nil:
			cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+home)
		case *s.XDGConfigHome != "":
			cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+filepath.Join(home, *s.XDGConfigHome))
		}
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
