package memstore

import "syscall"

// hugePage is the size of a transparent huge page on the platforms Go
// supports on Linux that have them (x86-64, arm64 with 4 KiB pages).
const hugePage = 2 << 20

// adviseHuge asks the kernel to back the 2 MiB-aligned stretches of an
// arena with transparent huge pages (madvise MADV_HUGEPAGE; honoured
// when /sys/kernel/mm/transparent_hugepage/enabled is "always" or
// "madvise"). A fresh arena is written once from start to end: with 4
// KiB pages every page faults on first touch, a huge page once per 2
// MiB. It is a hint: on error, or where huge pages are off, nothing
// changes.
func adviseHuge(b []byte) {
	if len(b) < 2*hugePage {
		return
	}
	start := (uintptr(unsafePointer(b)) + hugePage - 1) &^ (hugePage - 1)
	end := (uintptr(unsafePointer(b)) + uintptr(len(b))) &^ (hugePage - 1)
	if end <= start {
		return
	}
	off := start - uintptr(unsafePointer(b))
	_ = syscall.Madvise(b[off:off+(end-start)], syscall.MADV_HUGEPAGE)
}
