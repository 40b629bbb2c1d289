package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/measure"
	"github.com/kvenc/kvenc/bench/internal/report"
)

// env is what every subcommand shares: the config, stdout, the output
// directory, temporary directories and the dataset cache.
type env struct {
	cfg     config
	stdout  io.Writer
	start   time.Time
	printed map[string]bool

	mu  sync.Mutex // guards tmp: close also runs from the signal handler
	tmp string     // created on first use, removed by close
}

func newEnv(cfg config, stdout io.Writer) (*env, error) {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return nil, err
	}
	if err := measure.SetBenchtime(cfg.benchtime); err != nil {
		return nil, err
	}
	return &env{cfg: cfg, stdout: stdout, start: time.Now(), printed: map[string]bool{}}, nil
}

func (e *env) header() {
	report.Header(e.stdout, nil)
	fmt.Fprintf(e.stdout, "settings -count %d, -benchtime %s, -scale %g", e.cfg.count, e.cfg.benchtime, e.cfg.scale)
	if e.cfg.kvenc != "" {
		fmt.Fprintf(e.stdout, ", -kvenc %s (engine kvenc-set)", e.cfg.kvenc)
	}
	fmt.Fprint(e.stdout, "\n\n")
}

// dataset prints a "dataset" line once per distinct description.
func (e *env) dataset(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	if !e.printed[line] {
		e.printed[line] = true
		fmt.Fprintf(e.stdout, "dataset  %s\n", line)
	}
}

// lineitem returns the lineitem rows at the configured scale.
func (e *env) lineitem() (*dataset.LineitemSet, error) {
	orders := int(e.cfg.scale * 10 * dataset.LineitemOrders)
	set, err := dataset.LineitemRows(max(orders, 1))
	if err != nil {
		return nil, err
	}
	e.dataset("lineitem: %d rows, the first %d orders of TPC-H SF1 (go-tpc dbgen, generated now)", len(set.Rows), orders)
	return set, nil
}

// seriesLen is the number of values per synthetic time series.
func (e *env) seriesLen() int { return int(e.cfg.scale * 6_000_000) }

// emit prints t and writes its CSV.
func (e *env) emit(t *report.Table) error {
	if err := t.Fprint(e.stdout); err != nil {
		return err
	}
	_, err := t.WriteCSV(e.cfg.out)
	return err
}

// outPath is a file name inside -out.
func (e *env) outPath(name string) string { return filepath.Join(e.cfg.out, name) }

// tempDir returns a directory removed when the run ends.
func (e *env) tempDir() (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tmp == "" {
		d, err := os.MkdirTemp("", "kvbench-")
		if err != nil {
			return "", err
		}
		e.tmp = d
	}
	return os.MkdirTemp(e.tmp, "")
}

// removeTemp removes a directory from tempDir as soon as it is done with.
func (e *env) removeTemp(dir string) { os.RemoveAll(dir) }

func (e *env) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tmp != "" {
		os.RemoveAll(e.tmp)
		e.tmp = ""
	}
}

// cleanupOnSignal removes the temporary directories when the run is
// interrupted (Ctrl-C, SIGTERM), then exits; the returned func stops it.
func (e *env) cleanupOnSignal() (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			e.close()
			fmt.Fprintln(os.Stderr, "kvbench: interrupted; temporary directories removed")
			os.Exit(130)
		case <-done:
		}
	}()
	return func() { signal.Stop(sig); close(done) }
}

func (e *env) elapsed() time.Duration { return time.Since(e.start).Round(100 * time.Millisecond) }
