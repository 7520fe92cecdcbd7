-- Fixture: node types as CUDA 13.0's CUPTI reports them for a graph with
-- copies (H200 trace of the graph-conversion demo): memcpy nodes arrive with
-- nodeType 0 (kernel) and no kernel name. The loader takes the type a node's
-- executions prove. Graph 1: 11 -> 12 -> 13 -> 14, all recorded as type 0;
-- executable graph 2 (21..24 from 11..14) launched once:
--   21 ran as a memcpy      -> 11 is drawn as a memcpy (4096 bytes)
--   22 ran as a kernel      -> 12 stays a kernel (named)
--   23 ran as a memset      -> 13 is drawn as a memset
--   24 never ran            -> 14 stays a kernel (nothing proves otherwise)
INSERT INTO strings VALUES (1, '_Z4stepPf');
INSERT INTO graphs VALUES (1, NULL, 0, 1, 100, 0);
INSERT INTO graph_nodes (node_id, graph_id, type, name_id, bytes) VALUES
  (11, 1, 0, NULL, 4096), (12, 1, 0, 1, NULL), (13, 1, 0, NULL, 64), (14, 1, 0, NULL, NULL);
INSERT INTO graph_edges VALUES (1, 11, 12), (1, 12, 13), (1, 13, 14);
INSERT INTO graph_execs VALUES (2, 1, 0, 200);
INSERT INTO graph_nodes (node_id, graph_id, type, name_id, original_node_id) VALUES
  (21, 2, 0, NULL, 11), (22, 2, 0, 1, 12), (23, 2, 0, NULL, 13), (24, 2, 0, NULL, 14);
INSERT INTO graph_launches VALUES (1, 2, 7, 500, 1000, 1010, 42);
INSERT INTO memcpys (start, end, stream, correlation_id, bytes, copy_kind, graph_id, graph_node_id) VALUES
  (2000, 2500, 7, 500, 4096, 1, 2, 21);
INSERT INTO kernels (start, end, stream, correlation_id, name_id, graph_id, graph_node_id) VALUES
  (2500, 3500, 7, 500, 1, 2, 22);
INSERT INTO memsets (start, end, stream, correlation_id, bytes, graph_id, graph_node_id) VALUES
  (3500, 3600, 7, 500, 64, 2, 23);
