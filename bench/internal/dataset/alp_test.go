package dataset

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadALP(t *testing.T) {
	dir, err := FindALPDir()
	require.NoError(t, err)
	files, err := LoadALP(dir, nil)
	require.NoError(t, err)
	require.Len(t, files, 31)
	sum, paper := 0.0, 0
	for _, f := range files {
		assert.Len(t, f.Values, 1024, f.Name)
		if f.Name == ALPExtra {
			assert.False(t, f.Paper)
			assert.True(t, math.IsNaN(f.ALPBits), "the README gives no figure for %s", f.Name)
			continue
		}
		assert.True(t, f.Paper, f.Name)
		require.False(t, math.IsNaN(f.ALPBits), "no ALP figure for %s", f.Name)
		sum += f.ALPBits
		paper++
	}
	require.Equal(t, 30, paper)
	// The README: "Mean over the 30 paper files: about 21.3 bits/value."
	assert.InDelta(t, 21.3, sum/30, 0.05)
	byName := map[string]ALPFile{}
	for _, f := range files {
		byName[f.Name] = f
	}
	assert.Equal(t, 55.5, byName["poi_lat"].ALPBits, "a name with a note after it")
	assert.Equal(t, 16.3, byName["neon_air_pressure"].ALPBits)
	assert.Equal(t, 7.1, byName["stocks_usa_c"].ALPBits, "a row with an empty left half")
	assert.Equal(t, 19.7, byName["cms1"].Values[0], "first line of cms1.csv")
}

func TestLoadALPSelects(t *testing.T) {
	dir, err := FindALPDir()
	require.NoError(t, err)
	files, err := LoadALP(dir, []string{"poi_lon", "gov26"})
	require.NoError(t, err)
	require.Len(t, files, 2)
	assert.Equal(t, "gov26", files[0].Name, "name order")
	assert.Equal(t, "poi_lon", files[1].Name)
	_, err = LoadALP(dir, []string{"gov26", "nope"})
	assert.ErrorContains(t, err, `"nope"`)
	_, err = LoadALP(t.TempDir(), nil)
	assert.Error(t, err, "a directory without the README")
}
