package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ALPDirInRepo is where kvenc keeps ALP's sample datasets, relative to the
// repository root.
const ALPDirInRepo = "blockenc/shapeshift/testdata/alp"

// ALPExtra is the one file of ALP's samples outside the paper's 30 datasets.
const ALPExtra = "air_sensor_f"

// ALPFile is one of ALP's sample files: 1,024 consecutive float64 values of
// a real dataset, and what ALP itself reaches on them.
type ALPFile struct {
	Name   string // file name without .csv
	Values []float64
	// ALPBits is ALP's bits per value on this file, from the README beside
	// the data; NaN when the README gives none.
	ALPBits float64
	// Paper is true for the 30 datasets of the ALP paper (every file but
	// ALPExtra).
	Paper bool
}

// FindALPDir returns the directory of ALP's sample files: ALPDirInRepo
// under the working directory or the nearest of its parents that has it
// (kvbench runs in bench/, its tests deeper).
func FindALPDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, ALPDirInRepo)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("dataset: no %s in the working directory or above it", ALPDirInRepo)
		}
		dir = parent
	}
}

// LoadALP reads the CSV files of dir in name order, and ALP's figure per
// file from dir/README.md. names, if not empty, selects files by name
// (without .csv); a name with no file is an error.
func LoadALP(dir string, names []string) ([]ALPFile, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		return nil, err
	}
	bits, err := readALPBits(filepath.Join(dir, "README.md"))
	if err != nil {
		return nil, err
	}
	var files []ALPFile
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".csv")
		if len(names) > 0 && !slices.Contains(names, name) {
			continue
		}
		vals, err := readFloats(p)
		if err != nil {
			return nil, err
		}
		b, ok := bits[name]
		if !ok {
			b = math.NaN()
		}
		files = append(files, ALPFile{Name: name, Values: vals, ALPBits: b, Paper: name != ALPExtra})
	}
	for _, n := range names {
		if !slices.ContainsFunc(files, func(f ALPFile) bool { return f.Name == n }) {
			return nil, fmt.Errorf("dataset: no ALP file %q in %s", n, dir)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("dataset: no CSV files in %s", dir)
	}
	return files, nil
}

// readFloats reads one value per line (blank lines skipped).
func readFloats(path string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []float64
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("dataset: %s line %d: %w", path, line, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// readALPBits reads the README's table of ALP's bits per value: rows of
// "| file | bits | | file | bits |", a file name possibly followed by a
// note in parentheses ("poi_lat (ALP_rd)").
func readALPBits(path string) (map[string]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	bits := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| \t"), "|")
		for i := 0; i+1 < len(cells); i++ {
			name, _, _ := strings.Cut(strings.TrimSpace(cells[i]), " ")
			v, err := strconv.ParseFloat(strings.TrimSpace(cells[i+1]), 64)
			if name == "" || err != nil {
				continue
			}
			bits[name] = v
			i++
		}
	}
	if len(bits) == 0 {
		return nil, errors.New("dataset: no bits/value table in " + path)
	}
	return bits, nil
}
