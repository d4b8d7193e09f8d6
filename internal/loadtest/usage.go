package loadtest

import (
	"fmt"
	"io"
	"runtime"
	"time"
)

// usage is a reading of the CPU time used so far: by this tool, by the whole machine and
// waiting for a CPU (Linux only), and by the server (from its /metrics, when it serves them).
// The tool usually shares the machine with the server: latencies measured on a saturated
// machine include the wait for a CPU, and the report says how busy it was.
type usage struct {
	at          time.Time
	self        time.Duration
	busy, total float64
	hostOK      bool
	pressure    time.Duration
	pressureOK  bool
	server      time.Duration
	serverOK    bool
}

// usageNow reads the CPU use now; s is a scrape of the server's metrics (ok false when none).
func usageNow(s sample, ok bool) usage {
	u := usage{at: time.Now(), self: selfCPU()}
	u.busy, u.total, u.hostOK = hostCPU()
	u.pressure, u.pressureOK = cpuPressure()
	if ok {
		u.server, u.serverOK = s.cpu()
	}
	return u
}

// CPU is the use of the machine's CPUs over a period, in cores (1 is one CPU all the time).
type CPU struct {
	CPUs        int     `json:"cpus"`
	ServerCores float64 `json:"server_cpu_cores"` // the server's, from its /metrics
	ToolCores   float64 `json:"client_cpu_cores"` // this tool's
	HostCores   float64 `json:"host_cpu_cores"`   // the whole machine's (Linux only)
	OtherCores  float64 `json:"other_cpu_cores"`  // the machine's less the server's and this tool's
	// PressurePct is the share of the period in which some runnable task on the machine waited
	// for a CPU (Linux PSI): high values mean latencies include waiting for a CPU.
	PressurePct float64 `json:"cpu_pressure_pct"`
}

// since is the CPU use between u0 and u.
func (u usage) since(u0 usage) CPU {
	c := CPU{CPUs: runtime.NumCPU()}
	wall := u.at.Sub(u0.at).Seconds()
	if wall <= 0 {
		return c
	}
	c.ToolCores = round((u.self-u0.self).Seconds()/wall, 2)
	if u.serverOK && u0.serverOK {
		c.ServerCores = round((u.server-u0.server).Seconds()/wall, 2)
	}
	if u.hostOK && u0.hostOK && u.total > u0.total {
		c.HostCores = round((u.busy-u0.busy)/(u.total-u0.total)*float64(c.CPUs), 2)
		c.OtherCores = round(max(0, c.HostCores-c.ServerCores-c.ToolCores), 2)
	}
	if u.pressureOK && u0.pressureOK {
		c.PressurePct = round(100*(u.pressure-u0.pressure).Seconds()/wall, 1)
	}
	return c
}

// writeText prints c as one line about the period named when.
func (c CPU) writeText(w io.Writer, when string) {
	fmt.Fprintf(w, "CPU %s, in cores of %d: server %.2f, this tool %.2f", when, c.CPUs, c.ServerCores, c.ToolCores)
	if c.HostCores > 0 {
		fmt.Fprintf(w, ", whole machine %.2f (other processes %.2f)", c.HostCores, c.OtherCores)
	}
	if c.PressurePct > 0 {
		fmt.Fprintf(w, "; some task waited for a CPU %.0f%% of the time", c.PressurePct)
	}
	fmt.Fprintln(w)
}
