//go:build !linux

package memstore

// adviseHuge does nothing where the kernel has no madvise MADV_HUGEPAGE.
func adviseHuge([]byte) {}
