package shapeshift

import (
	"bufio"
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

// loadALP reads every CSV file of testdata/alp in name order.
func loadALP(tb testing.TB) []alpFile {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(alpDir, "*.csv"))
	require.NoError(tb, err)
	files := make([]alpFile, 0, len(paths))
	for _, p := range paths {
		f, err := os.Open(p)
		require.NoError(tb, err)
		var vs []float64
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			v, err := strconv.ParseFloat(line, 64)
			require.NoError(tb, err, "%s: %q", p, line)
			vs = append(vs, v)
		}
		require.NoError(tb, sc.Err())
		require.NoError(tb, f.Close())
		files = append(files, alpFile{strings.TrimSuffix(filepath.Base(p), ".csv"), vs})
	}
	return files
}

func TestALPData(t *testing.T) {
	files := loadALP(t)
	require.Len(t, files, 31)
	for _, f := range files {
		require.Len(t, f.values, 1024, f.name)
	}
}
