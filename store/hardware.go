package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

// ErrTooManyMachines is returned when a team would name more machines
// than sizing.MaxMachines.
var ErrTooManyMachines = fmt.Errorf("a team may name at most %d machines", sizing.MaxMachines)

// SaveMachine names one of a team's machines (team "" is the command
// line's), replacing a machine of the same name.
func (db *DB) SaveMachine(ctx context.Context, team string, m sizing.Machine) error {
	if m.Name == "" || m.GPU == "" || m.GPUs < 1 || m.Nodes < 1 || m.GPUMemoryBytes < 0 || m.HostRAMBytes < 0 {
		return fmt.Errorf("save machine %q: a name, a GPU and positive counts are required", m.Name)
	}
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		if err := db.lockTable(ctx, tx, "team_hardware"); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM team_hardware WHERE team = ? AND name <> ?`, team, m.Name).Scan(&n); err != nil {
			return err
		}
		if n >= sizing.MaxMachines {
			return ErrTooManyMachines
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO team_hardware (team, name, gpu, gpus, nodes, gpu_memory_gib, host_ram_bytes, description, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (team, name) DO UPDATE SET gpu = excluded.gpu, gpus = excluded.gpus, nodes = excluded.nodes,
				gpu_memory_gib = excluded.gpu_memory_gib, host_ram_bytes = excluded.host_ram_bytes,
				description = excluded.description, created_at = excluded.created_at`,
			team, m.Name, m.GPU, m.GPUs, m.Nodes, m.GPUMemoryBytes>>30, m.HostRAMBytes, m.Description, formatTime(db.now()))
		return err
	})
	db.machines.forget(team)
	if errors.Is(err, ErrTooManyMachines) {
		return fmt.Errorf("save machine %q: %w", m.Name, err)
	}
	if err != nil {
		return db.wrap("save machine "+m.Name, err)
	}
	return nil
}

// Machines returns a team's machines by name. Every sizing question
// looks at them, so they are kept in memory for machinesTTL (see
// machineCache).
func (db *DB) Machines(ctx context.Context, team string) ([]sizing.Machine, error) {
	if ms, ok := db.machines.get(team); ok {
		return ms, nil
	}
	gen := db.machines.generation()
	ms, err := db.readMachines(ctx, team)
	if err != nil {
		return nil, err
	}
	db.machines.put(team, ms, gen)
	return slices.Clone(ms), nil
}

// readMachines reads a team's machines from the database.
func (db *DB) readMachines(ctx context.Context, team string) ([]sizing.Machine, error) {
	rows, err := db.ro.QueryContext(ctx, `SELECT name, gpu, gpus, nodes, gpu_memory_gib, host_ram_bytes, description
		FROM team_hardware WHERE team = ? ORDER BY name`, team)
	if err != nil {
		return nil, db.wrap("machines", err)
	}
	defer rows.Close()
	var out []sizing.Machine
	for rows.Next() {
		var m sizing.Machine
		var gib int64
		if err := rows.Scan(&m.Name, &m.GPU, &m.GPUs, &m.Nodes, &gib, &m.HostRAMBytes, &m.Description); err != nil {
			return nil, db.wrap("machines", err)
		}
		m.GPUMemoryBytes = gib << 30
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("machines", err)
	}
	return out, nil
}

// RemoveMachine forgets a team's machine and reports whether there was one.
func (db *DB) RemoveMachine(ctx context.Context, team, name string) (bool, error) {
	var n int64
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM team_hardware WHERE team = ? AND name = ?`, team, name)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	db.machines.forget(team)
	if err != nil {
		return false, db.wrap("remove machine "+name, err)
	}
	return n > 0, nil
}

// machinesTTL is how long machineCache reuses a team's machines. This
// process's own SaveMachine and RemoveMachine drop the team's entry at
// once; a change made elsewhere (another replica on PostgreSQL, the
// command line on the same file) is seen within machinesTTL.
const machinesTTL = 2 * time.Second

// maxCachedTeams bounds machineCache: a put past it first drops the
// expired entries, and all of them if none had expired.
const maxCachedTeams = 4096

// machineCache keeps the teams' machines as last read. A read that began
// before a write to the cache's teams (its generation changed) is not
// kept, so a reader cannot put back what a write just replaced.
type machineCache struct {
	mu    sync.Mutex
	gen   uint64
	teams map[string]cachedMachines
}

type cachedMachines struct {
	ms    []sizing.Machine
	until time.Time
}

// get returns a copy of a team's machines when they were read within
// machinesTTL.
func (c *machineCache) get(team string) ([]sizing.Machine, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.teams[team]
	if !ok || time.Now().After(e.until) {
		return nil, false
	}
	return slices.Clone(e.ms), true
}

// generation is the cache's generation, to hand to put after a read.
func (c *machineCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put keeps ms as the team's machines, read at generation gen, unless a
// write came since.
func (c *machineCache) put(team string, ms []sizing.Machine, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	now := time.Now()
	if c.teams == nil {
		c.teams = map[string]cachedMachines{}
	}
	if len(c.teams) >= maxCachedTeams {
		for t, e := range c.teams {
			if now.After(e.until) {
				delete(c.teams, t)
			}
		}
		if len(c.teams) >= maxCachedTeams {
			clear(c.teams)
		}
	}
	c.teams[team] = cachedMachines{ms: ms, until: now.Add(machinesTTL)}
}

// forget drops a team's machines after a write to them.
func (c *machineCache) forget(team string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.teams, team)
}
