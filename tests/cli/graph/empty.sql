-- Fixture: a trace with no CUDA graphs (one kernel only).
INSERT INTO kernels (start, end, stream) VALUES (0, 100, 1);
