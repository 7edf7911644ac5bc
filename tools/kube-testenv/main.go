// Command kube-testenv runs a real kube-apiserver + etcd for kubectl-capz's test suite.
//
//	kube-testenv [-crd-dir DIR]... [-bin-dir DIR] [-verbose]
//	kube-testenv trim-crds -out DIR [-storage CRD=VERSION]... FILE...
//
// The first form starts etcd and kube-apiserver (both built from their Go modules by build.sh) through
// controller-runtime's envtest, installs every CRD found in the -crd-dir directories, waits until they are
// Established, writes an admin kubeconfig and a kubeconfig for a client-certificate user that has no RBAC
// rights at all, and prints exactly one line on stdout:
//
//	READY <admin kubeconfig> <forbidden kubeconfig>
//
// It then runs until its stdin is closed (the test process exited, however it died) or it gets SIGTERM or
// SIGINT, and stops etcd and kube-apiserver and removes its temporary directories before exiting.
// All diagnostics go to stderr; the control plane's own logs are kept in the work directory and their tail
// is printed on stderr when something fails.
//
// The second form (trim-crds) prepares upstream CRDs for this server; see trim.go.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr/funcr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// etcdMaxRequestBytes lifts etcd's 1.5 MiB default so that big CRDs (ASO) fit; the apiserver's own 3 MiB
// request body limit is hard-coded and still applies.
const etcdMaxRequestBytes = "8388608"

// forbiddenUser is authenticated (client certificate) but bound to no role: every resource request is 403.
const forbiddenUser = "capz-test-forbidden"

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	if len(os.Args) > 1 && os.Args[1] == "trim-crds" {
		if err := trimCRDsMain(os.Args[2:]); err != nil {
			fmt.Fprintf(os.Stderr, "kube-testenv trim-crds: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "kube-testenv: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	var crdDirs stringList
	binDir := flag.String("bin-dir", "", "directory holding kube-apiserver and etcd (default: this executable's directory)")
	startTimeout := flag.Duration("start-timeout", 3*time.Minute, "how long etcd and kube-apiserver may take to become ready")
	crdTimeout := flag.Duration("crd-timeout", 3*time.Minute, "how long the CRDs may take to become Established")
	verbose := flag.Bool("verbose", false, "log envtest's progress on stderr")
	flag.Var(&crdDirs, "crd-dir", "directory of CRD manifests (.yaml/.yml/.json, searched non-recursively); repeatable")
	flag.Parse()
	if flag.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}

	// Our test process may be gone by the time we report shutting down; a write to its closed pipes must
	// fail quietly instead of killing us before etcd and kube-apiserver are stopped.
	signal.Ignore(syscall.SIGPIPE)

	if *binDir == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("locating own executable: %w", err)
		}
		*binDir = filepath.Dir(exe)
	}
	for _, b := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(*binDir, b)); err != nil {
			return fmt.Errorf("%s not found in %s (run tools/kube-testenv/build.sh): %w", b, *binDir, err)
		}
	}

	verbosity := 0
	if *verbose {
		verbosity = 1
	}
	ctrllog.SetLogger(funcr.New(func(prefix, args string) {
		fmt.Fprintln(os.Stderr, "kube-testenv:", prefix, args)
	}, funcr.Options{Verbosity: verbosity}))

	workDir, err := os.MkdirTemp("", "kube-testenv-")
	if err != nil {
		return fmt.Errorf("creating work directory: %w", err)
	}
	defer os.RemoveAll(workDir)

	logs := map[string]*os.File{}
	for _, name := range []string{"etcd.log", "kube-apiserver.log"} {
		f, err := os.Create(filepath.Join(workDir, name))
		if err != nil {
			return fmt.Errorf("creating %s: %w", name, err)
		}
		defer f.Close()
		logs[name] = f
	}

	env := &envtest.Environment{
		BinaryAssetsDirectory:    *binDir,
		CRDDirectoryPaths:        crdDirs,
		ErrorIfCRDPathMissing:    len(crdDirs) > 0,
		ControlPlaneStartTimeout: *startTimeout,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	env.ControlPlane.Etcd = &envtest.Etcd{Out: logs["etcd.log"], Err: logs["etcd.log"]}
	env.ControlPlane.Etcd.Configure().Set("max-request-bytes", etcdMaxRequestBytes)
	apiServer := env.ControlPlane.GetAPIServer()
	apiServer.Out = logs["kube-apiserver.log"]
	apiServer.Err = logs["kube-apiserver.log"]

	// Watch for the end of our life before starting anything, so that a parent that dies during the
	// (slow) start-up still gets its servers stopped.
	stop := make(chan string, 2)
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop <- "stdin closed"
	}()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		s := <-sigs
		stop <- "signal " + s.String()
	}()

	started := make(chan error, 1)
	var cfg *rest.Config
	go func() {
		var err error
		cfg, err = env.Start()
		started <- err
	}()

	var startErr error
	select {
	case startErr = <-started:
	case why := <-stop:
		// envtest cannot be interrupted; let Start finish, then stop what it started.
		fmt.Fprintf(os.Stderr, "kube-testenv: %s during start-up, shutting down\n", why)
		<-started
		return shutdown(env, workDir, nil)
	}
	if startErr != nil {
		dumpLogs(workDir)
		_ = env.Stop()
		return fmt.Errorf("starting control plane: %w", startErr)
	}

	if err := waitEstablished(cfg, env.CRDs, *crdTimeout, stop); err != nil {
		dumpLogs(workDir)
		_ = env.Stop()
		return err
	}

	adminPath := filepath.Join(workDir, "admin.kubeconfig")
	if err := writeKubeconfig(adminPath, "capz-testenv", "capz-testenv-admin", cfg); err != nil {
		_ = env.Stop()
		return err
	}
	forbidden, err := env.AddUser(envtest.User{Name: forbiddenUser}, nil)
	if err != nil {
		_ = env.Stop()
		return fmt.Errorf("provisioning user %s: %w", forbiddenUser, err)
	}
	forbiddenPath := filepath.Join(workDir, "forbidden.kubeconfig")
	if err := writeKubeconfig(forbiddenPath, "capz-testenv", forbiddenUser, forbidden.Config()); err != nil {
		_ = env.Stop()
		return err
	}

	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(out, "READY %s %s\n", adminPath, forbiddenPath)
	if err := out.Flush(); err != nil {
		_ = env.Stop()
		return fmt.Errorf("writing READY line: %w", err)
	}

	why := <-stop
	return shutdown(env, workDir, &why)
}

func shutdown(env *envtest.Environment, workDir string, why *string) error {
	if why != nil {
		fmt.Fprintf(os.Stderr, "kube-testenv: %s, stopping etcd and kube-apiserver\n", *why)
	}
	if err := env.Stop(); err != nil {
		return fmt.Errorf("stopping control plane: %w", err)
	}
	return nil
}

// waitEstablished polls until every installed CRD has the Established and NamesAccepted conditions.
func waitEstablished(cfg *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition, timeout time.Duration, stop <-chan string) error {
	client, err := apiextclient.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("apiextensions client: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	pending := map[string]bool{}
	for _, crd := range crds {
		pending[crd.Name] = true
	}
	lastWhy := map[string]string{}
	for len(pending) > 0 {
		for name := range pending {
			got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				lastWhy[name] = err.Error()
				continue
			}
			if isTrue(got, apiextensionsv1.Established) && isTrue(got, apiextensionsv1.NamesAccepted) {
				delete(pending, name)
				continue
			}
			lastWhy[name] = conditionSummary(got)
		}
		if len(pending) == 0 {
			break
		}
		select {
		case why := <-stop:
			return fmt.Errorf("%s while waiting for CRDs", why)
		case <-ctx.Done():
			var b strings.Builder
			for name := range pending {
				fmt.Fprintf(&b, "\n  %s: %s", name, lastWhy[name])
			}
			return fmt.Errorf("CRDs not Established after %s:%s", timeout, b.String())
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}

func isTrue(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == t {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

func conditionSummary(crd *apiextensionsv1.CustomResourceDefinition) string {
	if len(crd.Status.Conditions) == 0 {
		return "no conditions yet"
	}
	var parts []string
	for _, c := range crd.Status.Conditions {
		parts = append(parts, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(parts, "; ")
}

func writeKubeconfig(path, cluster, user string, cfg *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters[cluster] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	ctx := clientcmdapi.NewContext()
	ctx.Cluster = cluster
	ctx.AuthInfo = user
	kc.Contexts[user] = ctx
	kc.CurrentContext = user
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return nil
}

// dumpLogs prints the last lines of the control plane's logs on stderr (they are deleted with the work dir).
func dumpLogs(workDir string) {
	for _, name := range []string{"etcd.log", "kube-apiserver.log"} {
		data, err := os.ReadFile(filepath.Join(workDir, name))
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > 40 {
			lines = lines[len(lines)-40:]
		}
		fmt.Fprintf(os.Stderr, "---- last lines of %s ----\n%s\n", name, strings.Join(lines, "\n"))
	}
}
