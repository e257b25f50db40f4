-- PostgreSQL twin of ../0015_installation_reinstall.sql.
ALTER TABLE slack_installations ADD COLUMN reinstall_since TEXT NOT NULL DEFAULT '';
