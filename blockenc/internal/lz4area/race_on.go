//go:build race

package lz4area

// raceBuild: built with the race detector, under which sync.Pool drops
// values at random.
const raceBuild = true
