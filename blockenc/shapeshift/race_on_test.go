//go:build race

package shapeshift

// raceBuild: built with the race detector, under which sync.Pool drops
// values at random (so a pooled scratch buffer is sometimes allocated
// again).
const raceBuild = true
