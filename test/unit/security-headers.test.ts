import express from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { securityHeaders } from '../../src/http/middleware/security-headers';

/** An answer's headers without the ones that differ between two responses anyway. */
async function headersOf(app: express.Express): Promise<Record<string, unknown>> {
  app.get('/', (_req, res) => {
    res.send('ok');
  });
  const response = await request(app).get('/');
  const { date: _date, ...headers } = response.headers as Record<string, unknown>;
  return headers;
}

describe('securityHeaders', () => {
  it('when a response is sent, then it carries exactly the headers helmet() would have set', async () => {
    const withHelmet = express();
    withHelmet.use(helmet());
    const withList = express();
    withList.use(securityHeaders());
    const expected = await headersOf(withHelmet);
    expect(expected['x-content-type-options']).toBe('nosniff');
    expect(expected['content-security-policy']).toBeDefined();
    expect(expected['x-powered-by']).toBeUndefined();
    expect(await headersOf(withList)).toEqual(expected);
  });
});
