-- The reference for `npm run bench -- create` (B1): one append of a charge's creation event as the PostgreSQL
-- adapter writes it (the stream row claimed with no_stream, the event row) plus one read-model upsert (the
-- charge's `transactions` row), in one transaction. Each transaction creates a new charge stream, as each
-- POST /v1/pix does. This is less work than one POST /v1/pix (three appends, see BENCHMARKS.md "HTTP create
-- and replay"): it is the floor the gateway is compared with, per the issue.
-- Run by bench/create-pix.ts as: pgbench -n -c 32 -j 2 -T <seconds> -D run=<tag> -f bench/pgbench-create-pix.sql <db>
-- The JSON literals have the keys and byte size of a real Transaction.Reserved event (data ~990 bytes,
-- metadata ~165 bytes as jsonb text), checked at the end of every run.
\set n random(1, 9000000000000000000)
\set amount random(100, 999999)
BEGIN;
INSERT INTO streams (stream_id, version) VALUES ('transaction-pgb-:run-:client_id-:n', 1)
  ON CONFLICT DO NOTHING RETURNING version \gset
INSERT INTO events (stream_id, version, event_id, type, schema_version, data, metadata)
  VALUES ('transaction-pgb-:run-:client_id-:n', :version, gen_random_uuid(), 'Transaction.Reserved', 1,
    '{"amount": :amount, "boleto": null, "method": "pix", "request": {"amount": :amount, "method": "pix", "customer": {"name": "Maria Oliveira Santos", "email": "maria.oliveira@example.com.br", "phone": "11987654321", "address": {"city": "Sao Paulo", "state": "SP", "number": "1000", "street": "Avenida Paulista", "district": "Bela Vista", "zip_code": "01310100"}, "document": "39053344705"}, "reference": "bench-:n", "tenant_id": "ten_01m7z5q39c7hvc37n4v7mn1r2q", "expires_in": 3600, "description": "Pedido 48213 - plano mensal"}, "currency": "BRL", "livemode": false, "reference": "bench-:n", "simulated": true, "tenant_id": "ten_01m7z5q39c7hvc37n4v7mn1r2q", "expires_in": 3600, "description": "Pedido 48213 - plano mensal", "environment": "sandbox", "provider_id": null, "reserved_at": "2026-11-21T13:46:19.942Z", "callback_url": null, "subaccount_id": null, "cost_center_id": null, "transaction_id": "pgb-:run-:client_id-:n", "provider_request": null, "idempotency_key_sha256": "bc39eee86911db0c2f049366747f8b234a896d631b7c6e338e265b632535ea02"}'::jsonb,
    '{"actor": "api_key:key_01m7z5q39r4bbz5q836asgtq7s", "livemode": false, "tenant_id": "ten_01m7z5q39c7hvc37n4v7mn1r2q", "request_id": "req_01m7z5q7vjyhw59ggyvqwsxgd2"}'::jsonb)
  RETURNING global_position;
INSERT INTO transactions AS t (id, tenant_id, livemode, method, status, amount, currency, reference, description,
    simulated, environment, provider_reference, pix_copy_paste, pix_qr_code, expires_at, sequence, created_at,
    updated_at)
  VALUES ('pgb-:run-:client_id-:n', 'ten_01m7z5q39c7hvc37n4v7mn1r2q', false, 'pix', 'pending', :amount, 'BRL',
    'bench-:n', 'Pedido 48213 - plano mensal', true, 'sandbox', 'sim_pgb-:run-:client_id-:n',
    'SIMULADOR-TESTE-NAO-PAGAVEL:pgb-:run-:client_id-:n', 'SIMULADOR-TESTE-NAO-PAGAVEL:pgb-:run-:client_id-:n',
    now() + interval '1 hour', :version, now(), now())
  ON CONFLICT (id) DO UPDATE SET status = excluded.status, provider_reference = excluded.provider_reference,
    pix_copy_paste = excluded.pix_copy_paste, pix_qr_code = excluded.pix_qr_code, expires_at = excluded.expires_at,
    sequence = excluded.sequence, updated_at = excluded.updated_at
  WHERE t.sequence < excluded.sequence;
END;
