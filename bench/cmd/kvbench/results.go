package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// writeResults writes path, a Markdown page with the run's whole output and
// the plots it drew; the plots are copied to docs/ beside path, so that the
// page and its images can be committed together.
func writeResults(path string, args []string, output string, e *env) error {
	docs := filepath.Join(filepath.Dir(path), "docs")
	plots, err := e.newPlots()
	if err != nil {
		return err
	}
	if len(plots) > 0 {
		if err := os.MkdirAll(docs, 0o755); err != nil {
			return err
		}
	}
	for _, p := range plots {
		if err := copyFile(filepath.Join(docs, filepath.Base(p)), p); err != nil {
			return err
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# kvbench results\n\n")
	fmt.Fprintf(&b, "Written by `kvbench %s`; `make bench` regenerates it.\n", strings.Join(args, " "))
	fmt.Fprintf(&b, "The machine, Go version and settings are in the first lines. Single numbers move with the machine's load;\n")
	fmt.Fprintf(&b, "ratios taken in the same run are the point. What each table measures: [README.md](README.md).\n\n")
	fmt.Fprintf(&b, "```\n%s```\n", output)
	if len(plots) > 0 {
		fmt.Fprintf(&b, "\n## Plots\n\n")
		for _, p := range plots {
			name := filepath.Base(p)
			fmt.Fprintf(&b, "![%s](docs/%s)\n\n", strings.TrimSuffix(name, ".png"), name)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// newPlots lists the PNG files in -out written during this run, by name.
func (e *env) newPlots() ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(e.cfg.out, "*.png"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && !fi.ModTime().Before(e.start) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
