//go:build !unix

package app_test

import "testing"

// cpuClock reports nothing where the process's CPU time is not at hand.
type cpuClock struct{}

func startCPU(*testing.B) cpuClock { return cpuClock{} }

func (cpuClock) report(*testing.B) {}
