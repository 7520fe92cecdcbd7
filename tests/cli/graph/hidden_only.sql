-- Fixture: one graph, empty (no nodes, no launches), as CUDA leaves after an
-- instantiation. The default list has no table, only the count and the
-- line "1 empty graph not shown; --all lists them".
INSERT INTO graphs VALUES (3, NULL, 0, 1, 300, 0);
