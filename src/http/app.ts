import express, { type Express } from 'express';
import helmet from 'helmet';
import { randomUUID } from 'node:crypto';
import { pinoHttp } from 'pino-http';
import type { AppContext } from '../context';
import { apiVersion } from './middleware/api-version';
import { renderErrors, unknownRoute } from './middleware/errors';
import { registerRoutes } from './routes';

/** Builds the Express app: security headers, request ids, logs, JSON body limit, versioned routes, errors. */
export function createApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('trust proxy', 'loopback');
  app.use(helmet());
  app.use(
    pinoHttp({
      logger: ctx.logger,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && incoming.length <= 200 ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      autoLogging: { ignore: (req) => req.url?.endsWith('/health') ?? false },
    }),
  );
  app.use(express.json({ limit: ctx.config.http.bodyLimit, strict: false }));

  const api = express.Router({ mergeParams: true });
  registerRoutes(api, ctx);
  app.use('/api/:apiVersion', apiVersion, api);

  app.use(unknownRoute);
  app.use(renderErrors(ctx.logger));
  return app;
}
