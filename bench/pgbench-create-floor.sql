-- The floor of `npm run bench -- create` (B1, issue 14): the rows one POST /v1/pix (simulator, test key)
-- must leave, written with nothing else, in the fewest commits the SPEC allows. Why it is the floor:
--   * SPEC 3.1: the reservation (the idempotency claim, the charge's stream and its first event, and the
--     read models API reads must see at once) is durable before the provider is called, and the outcome is
--     a second write after the call: two commits, no fewer (transaction 1 and 2 below).
--   * Each row once: the claim's stream and event; the charge's stream and Reserved event; its
--     `transactions` and `transaction_requests` rows; its webhook fold (`webhook_charge_states`); then the
--     stream advanced, the Issued event, and both read models updated. No message or delivery: the bench
--     tenant has no endpoint and the charge no callback_url, as in the gateway runs.
--   * No reads at all: no API-key lookup, no routing read, no stream read, no row returned to a client; every
--     statement a named prepared statement (`pgbench -M prepared`), so PostgreSQL parses and plans each once
--     per connection; one round trip per statement, 13 in all.
-- The JSON payloads are real events of the gateway (tenant, key and ids swapped for each transaction's own):
-- claim ~1,260 bytes, Reserved ~1,060, Issued ~470, metadata ~165 as jsonb text; checked after every run.
-- Run by bench/create-pix.ts as:
--   pgbench -n -M prepared -c <clients> -j 2 -T <seconds> -D run=<tag> -f bench/pgbench-create-floor.sql <db>
\set n random(1, 9000000000000000000)
\set amount random(100, 999999)
BEGIN;
INSERT INTO streams (stream_id, version)
  VALUES ('idempotency-ten_01m85gw649t67af5jdx67eb156-test-' || md5(:client_id::text || :n::text) || '-' || :run::text, 1) ON CONFLICT DO NOTHING;
INSERT INTO events (stream_id, version, event_id, type, schema_version, data, metadata)
  VALUES ('idempotency-ten_01m85gw649t67af5jdx67eb156-test-' || md5(:client_id::text || :n::text) || '-' || :run::text, 1, gen_random_uuid(),
    'Idempotency.Claimed', 1, ('{"route": "/v1/pix", "scope": "ten_01m85gw649t67af5jdx67eb156", "method": "POST", "payload": {"reserve": {"kind": "reserve", "amount": ' || :amount::text || ', "boleto": null, "method": "pix", "request": {"amount": ' || :amount::text || ', "method": "pix", "customer": {"name": "Maria Oliveira Santos", "email": "maria.oliveira@example.com.br", "phone": "11987654321", "address": {"city": "Sao Paulo", "state": "SP", "number": "1000", "street": "Avenida Paulista", "district": "Bela Vista", "zip_code": "01310100"}, "document": "39053344705"}, "reference": "pedido-48213", "tenant_id": "ten_01m85gw649t67af5jdx67eb156", "expires_in": 3600, "description": "Pedido 48213 - plano mensal"}, "livemode": false, "tenantId": "ten_01m85gw649t67af5jdx67eb156", "expiresIn": 3600, "reference": "pedido-48213", "simulated": true, "providerId": null, "callbackUrl": null, "description": "Pedido 48213 - plano mensal", "environment": "sandbox", "costCenterId": null, "subaccountId": null, "transactionId": "' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text) || '", "providerRequest": null, "idempotencyKeySha256": "' || md5(('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text)) || md5(:n::text) || '"}}, "livemode": false, "resource_id": "' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text) || '", "request_hash": "' || md5(('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text)) || md5(:n::text) || '"}')::jsonb, ('{"actor": "api_key' || chr(58) || 'key_01m85gw64mdt9hxpfcs2e1qrby", "livemode": false, "tenant_id": "ten_01m85gw649t67af5jdx67eb156", "request_id": "req_pgb' || :n::text || '"}')::jsonb);
INSERT INTO streams (stream_id, version) VALUES ('transaction-' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text), 1) ON CONFLICT DO NOTHING;
INSERT INTO events (stream_id, version, event_id, type, schema_version, data, metadata)
  VALUES ('transaction-' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text), 1, gen_random_uuid(), 'Transaction.Reserved', 1, ('{"amount": ' || :amount::text || ', "boleto": null, "method": "pix", "request": {"amount": ' || :amount::text || ', "method": "pix", "customer": {"name": "Maria Oliveira Santos", "email": "maria.oliveira@example.com.br", "phone": "11987654321", "address": {"city": "Sao Paulo", "state": "SP", "number": "1000", "street": "Avenida Paulista", "district": "Bela Vista", "zip_code": "01310100"}, "document": "39053344705"}, "reference": "pedido-48213", "tenant_id": "ten_01m85gw649t67af5jdx67eb156", "expires_in": 3600, "description": "Pedido 48213 - plano mensal"}, "currency": "BRL", "livemode": false, "reference": "pedido-48213", "simulated": true, "tenant_id": "ten_01m85gw649t67af5jdx67eb156", "expires_in": 3600, "description": "Pedido 48213 - plano mensal", "environment": "sandbox", "provider_id": null, "reserved_at": "2026-11-24T00:56:44.878Z", "callback_url": null, "subaccount_id": null, "cost_center_id": null, "transaction_id": "' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text) || '", "provider_request": null, "idempotency_key_sha256": "' || md5(('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text)) || md5(:n::text) || '"}')::jsonb, ('{"actor": "api_key' || chr(58) || 'key_01m85gw64mdt9hxpfcs2e1qrby", "livemode": false, "tenant_id": "ten_01m85gw649t67af5jdx67eb156", "request_id": "req_pgb' || :n::text || '"}')::jsonb);
INSERT INTO transactions (id, tenant_id, livemode, method, status, amount, currency, reference, description,
    simulated, environment, sequence, created_at, updated_at)
  VALUES (('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text), 'ten_01m85gw649t67af5jdx67eb156', false, 'pix', 'processing', :amount, 'BRL', 'pedido-48213', 'Pedido 48213 - plano mensal',
    true, 'sandbox', 1, now(), now()) ON CONFLICT (id) DO NOTHING;
INSERT INTO transaction_requests (transaction_id, tenant_id, livemode, source, request, provider_request,
    missing_fields, created_at)
  VALUES (('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text), 'ten_01m85gw649t67af5jdx67eb156', false, 'captured', ('{"amount": ' || :amount::text || ', "method": "pix", "customer": {"name": "Maria Oliveira Santos", "email": "maria.oliveira@example.com.br", "phone": "11987654321", "address": {"city": "Sao Paulo", "state": "SP", "number": "1000", "street": "Avenida Paulista", "district": "Bela Vista", "zip_code": "01310100"}, "document": "39053344705"}, "reference": "pedido-48213", "tenant_id": "ten_01m85gw649t67af5jdx67eb156", "expires_in": 3600, "description": "Pedido 48213 - plano mensal"}')::jsonb, null, '{}', now()) ON CONFLICT DO NOTHING;
INSERT INTO webhook_charge_states (transaction_id, tenant_id, livemode, callback_url, status, sequence)
  VALUES (('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text), 'ten_01m85gw649t67af5jdx67eb156', false, null, 'processing', 1) ON CONFLICT DO NOTHING;
END;
BEGIN;
UPDATE streams SET version = version + 1 WHERE stream_id = 'transaction-' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text) AND version = 1;
INSERT INTO events (stream_id, version, event_id, type, schema_version, data, metadata)
  VALUES ('transaction-' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text), 2, gen_random_uuid(), 'Transaction.Issued', 1, ('{"source": "creation", "boleto_url": null, "expires_at": "2026-11-24T01:56:44.895Z", "pix_qr_code": "SIMULADOR-TESTE-NAO-PAGAVEL:' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text) || '", "boleto_barcode": null, "pix_copy_paste": "SIMULADOR-TESTE-NAO-PAGAVEL:' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text) || '", "transaction_id": "' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text) || '", "provider_reference": "sim_' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text) || '", "boleto_digitable_line": null, "boleto_pix_copy_paste": null, "boleto_pix_expires_at": null}')::jsonb, ('{"actor": "api_key' || chr(58) || 'key_01m85gw64mdt9hxpfcs2e1qrby", "livemode": false, "tenant_id": "ten_01m85gw649t67af5jdx67eb156", "request_id": "req_pgb' || :n::text || '"}')::jsonb);
UPDATE transactions SET status = 'pending', provider_reference = 'sim_' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text),
    pix_copy_paste = 'SIMULADOR-TESTE-NAO-PAGAVEL:' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text), pix_qr_code = 'SIMULADOR-TESTE-NAO-PAGAVEL:' || ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text),
    expires_at = now() + interval '1 hour', sequence = 2, updated_at = now()
  WHERE id = ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text) AND sequence < 2;
UPDATE webhook_charge_states SET status = 'pending', sequence = 2 WHERE transaction_id = ('txn_pgb_' || :run::text || '_' || :client_id::text || '_' || :n::text) AND sequence < 2;
END;
