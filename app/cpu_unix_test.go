//go:build unix

package app_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuClock measures the CPU time (user and system) this process spends, the service's own
// cost per request: unlike ns/op it leaves out the time spent waiting for PostgreSQL, and other
// work on the machine disturbs it little.
type cpuClock struct{ start time.Duration }

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU(b *testing.B) cpuClock { return cpuClock{processCPU(b)} }

// report adds the CPU time per iteration to the benchmark's results, as cpu-µs/op.
func (c cpuClock) report(b *testing.B) {
	b.ReportMetric(float64(processCPU(b)-c.start)/float64(b.N)/float64(time.Microsecond), "cpu-µs/op")
}
