/**
 * The texts of `401 unauthorized` (SPEC 7; issue 23 item 1.7): each says what was wrong with the credential
 * as sent, so an integrator can fix it without guessing, and none tells a key that was never issued from one
 * that was revoked (one message for both: the difference would confirm that a secret once existed).
 */
export const AUTH_MESSAGES = {
  missingKey: 'No X-API-Key header: send your API key as X-API-Key: clb_test_… (test) or clb_live_… (live).',
  malformedKey:
    'Malformed X-API-Key: an API key is clb_test_… or clb_live_… followed by its secret, as issued.',
  bearerOnApi:
    'Authorization: Bearer is for panel sessions; the API takes X-API-Key: clb_test_… or clb_live_….',
  unknownKey: 'Unknown or revoked API key.',
  missingSession:
    'No Authorization header: the panel API takes Authorization: Bearer <session token> from POST /admin/sessions.',
  apiKeyOnPanel:
    'X-API-Key is for the public API (/v1); the panel API takes Authorization: Bearer <session token>.',
  malformedSession: 'Malformed Authorization header: send Authorization: Bearer <session token> (cls_…).',
  unknownSession: 'Unknown, expired or revoked session: log in again.',
} as const;
