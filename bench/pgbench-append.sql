-- The reference for `npm run bench -- append`: one single-event append as the PostgreSQL adapter does it
-- (claim/advance the stream row, then insert the event), written as a plain two-insert transaction.
-- Run by bench/append.ts as: pgbench -n -c 32 -j 2 -T <seconds> -D run=<tag> -f bench/pgbench-append.sql <db>
-- :client_id is pgbench's client number, so each client owns one stream, like the gateway's clients.
-- The JSON literals have the same keys and byte size as the gateway's payload (bench/append.ts chargeEvent).
\set rid random(100000000000, 999999999999)
\set amount random(100, 999999)
BEGIN;
INSERT INTO streams AS s (stream_id, version) VALUES ('pgb-:run-:client_id', 1)
  ON CONFLICT (stream_id) DO UPDATE SET version = s.version + 1
  RETURNING version \gset
INSERT INTO events (stream_id, version, event_id, type, schema_version, data, metadata)
  VALUES ('pgb-:run-:client_id', :version, gen_random_uuid(), 'charge.created', 1,
    '{"charge_id": "txn_:rid", "amount": :amount, "currency": "BRL", "method": "pix", "status": "pending", "description": "Pedido 48213 - plano mensal Calebe", "customer": {"name": "Maria Oliveira Santos", "email": "maria.oliveira@example.com.br", "document": "39053344705"}, "provider_id": "prv_01JD8ZQ4N7B2XG5K3M9T6RVW1C", "due_date": "2026-11-21"}'::jsonb,
    '{"actor": "api_key:key_01JD8ZQ4N7B2XG5K3M9T6RVW1C", "request_id": "req_:rid", "tenant_id": "ten_01JD8ZQ4N7B2XG5K3M9T6RVW1C", "livemode": false, "correlation_id": "req_:rid"}'::jsonb)
  RETURNING global_position;
END;
