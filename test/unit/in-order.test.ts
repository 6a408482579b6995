import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { inOrder } from '../../src/http/middleware/in-order';

/** An app whose only route answers the steps the middlewares noted, and whose error handler names the error. */
function appWith(handlers: RequestHandler[]): express.Express {
  const app = express();
  app.use(inOrder(handlers));
  app.get('/', (_req, res) => {
    res.json({ steps: res.locals.steps as string[] });
  });
  const named: ErrorRequestHandler = (error: Error, _req, res, _next) => {
    res.status(418).json({ error: error.message, steps: res.locals.steps as string[] });
  };
  app.use(named);
  return app;
}

const step =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    res.locals.steps = [...((res.locals.steps as string[] | undefined) ?? []), name];
    next();
  };

describe('inOrder', () => {
  it('when every middleware passes on, then they run in order and the route answers', async () => {
    const response = await request(appWith([step('a'), step('b'), step('c')])).get('/');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ steps: ['a', 'b', 'c'] });
  });

  it('when one passes on later (a body being read), then the next runs after it', async () => {
    const later: RequestHandler = (_req, _res, next) => {
      setTimeout(next, 5);
    };
    const response = await request(appWith([step('a'), later, step('b')])).get('/');
    expect(response.body).toEqual({ steps: ['a', 'b'] });
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('thrown');
      },
      'thrown',
    ],
    [
      'passes an error to next',
      ((_req, _res, next) => next(new Error('passed'))) as RequestHandler,
      'passed',
    ],
    ['returns a rejected promise', () => Promise.reject(new Error('rejected')), 'rejected'],
  ])(
    'when one %s, then the rest are skipped and the error middleware answers',
    async (_how, failing, message) => {
      const response = await request(appWith([step('a'), failing, step('b')])).get('/');
      expect(response.status).toBe(418);
      expect(response.body).toEqual({ error: message, steps: ['a'] });
    },
  );
});
