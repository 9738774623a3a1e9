import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Injectable } from '@nestjs/common';
import { FastifyReply } from 'fastify';

/** The worker's listener answers errors in the API's shape, `{"detail": "..."}` (an unknown path: 404). */
@Injectable()
@Catch(HttpException)
export class DetailErrorFilter implements ExceptionFilter {
  catch(exception: HttpException, host: ArgumentsHost): void {
    const status = exception.getStatus();
    const detail = status === 404 ? 'Not Found' : exception.message;
    void host.switchToHttp().getResponse<FastifyReply>().status(status).send({ detail });
  }
}
