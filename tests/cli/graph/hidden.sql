-- Fixture for the default list's hiding of empty graphs (no nodes and no
-- launches) and for --all. Expected figures, by hand:
-- Graph 1 (created): 11 -> 12; executable graph 2 (nodes 21, 22 instantiated
--   from 11, 12) launched once; kernels of 1000 and 3000 ns: 2 GPU ops,
--   4.000 us, 4.000 us per launch. Shown.
-- Graph 3 (created): no nodes, no executable graph (what CUDA 13.0 leaves
--   after each cudaGraphInstantiate). Hidden.
-- Graph 4 (created): no nodes, but instantiated (exec 5) and launched once
--   (an empty graph can be launched; no GPU ops): 0.000 us per launch. Shown,
--   because it was launched.
-- Graph 6 (capture): no nodes, instantiated (exec 7), never launched. Hidden.
-- Graph 8 (clone of graph 1): no nodes of its own. Hidden.
-- So: 5 graphs; 1 and 4 listed; "3 empty graphs not shown"; --all lists 5.
INSERT INTO strings VALUES (1, '_Z4stepPf');
INSERT INTO graphs VALUES (1, NULL, 0, 1, 100, 0);
INSERT INTO graphs VALUES (3, NULL, 0, 1, 300, 0);
INSERT INTO graphs VALUES (4, NULL, 0, 1, 400, 0);
INSERT INTO graphs VALUES (6, NULL, 0, 1, 600, 2);
INSERT INTO graphs VALUES (8, 1, 0, 1, 800, 1);
INSERT INTO graph_nodes (node_id, graph_id, type, name_id) VALUES (11, 1, 0, 1), (12, 1, 0, 1);
INSERT INTO graph_edges VALUES (1, 11, 12);
INSERT INTO graph_execs VALUES (2, 1, 0, 200), (5, 4, 0, 500), (7, 6, 0, 700);
INSERT INTO graph_nodes (node_id, graph_id, type, name_id, original_node_id) VALUES
  (21, 2, 0, 1, 11), (22, 2, 0, 1, 12);
INSERT INTO graph_launches VALUES (1, 2, 7, 500, 1000, 1010, 42), (2, 5, 7, 501, 9000, 9010, 42);
INSERT INTO kernels (start, end, stream, correlation_id, name_id, graph_id, graph_node_id) VALUES
  (2000, 3000, 7, 500, 1, 2, 21), (3000, 6000, 7, 500, 1, 2, 22);
