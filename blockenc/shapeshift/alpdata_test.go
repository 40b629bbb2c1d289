package shapeshift

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// alpDir holds ALP's sample datasets: 1,024 float64 values per file, one per
// line (see testdata/alp/README.md).
const alpDir = "testdata/alp"

// alpFile is one file of ALP's samples.
type alpFile struct {
	name   string // file name without .csv
	values []float64
}

// loadALP reads every CSV file of testdata/alp in name order; it panics
// if they cannot be read.
func loadALP(testing.TB) []alpFile {
	files, err := readALP()
	if err != nil {
		panic(err)
	}
	return files
}

func readALP() ([]alpFile, error) {
	paths, err := filepath.Glob(filepath.Join(alpDir, "*.csv"))
	if err != nil {
		return nil, err
	}
	files := make([]alpFile, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var vs []float64
		for _, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			v, err := strconv.ParseFloat(line, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			vs = append(vs, v)
		}
		files = append(files, alpFile{strings.TrimSuffix(filepath.Base(p), ".csv"), vs})
	}
	return files, nil
}

func TestALPData(t *testing.T) {
	files := loadALP(t)
	require.Len(t, files, 31)
	for _, f := range files {
		require.Len(t, f.values, 1024, f.name)
	}
}
