package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

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
	if errors.Is(err, ErrTooManyMachines) {
		return fmt.Errorf("save machine %q: %w", m.Name, err)
	}
	if err != nil {
		return db.wrap("save machine "+m.Name, err)
	}
	return nil
}

// Machines returns a team's machines by name.
func (db *DB) Machines(ctx context.Context, team string) ([]sizing.Machine, error) {
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
	if err != nil {
		return false, db.wrap("remove machine "+name, err)
	}
	return n > 0, nil
}
