import { Body, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import {
  CreatedWebhookResponse,
  CreateWebhookDto,
  ListWebhookDeliveriesQuery,
  UpdateWebhookDto,
  WebhookDeliveryResponse,
  WebhookResponse,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { UuidIdParams } from '../http/id-params';
import { DeleteOneRoute, ReadOneRoute } from '../routes/resource-routes';
import { CreateWebhook } from './use-cases/create-webhook.use-case';
import { DeleteWebhook } from './use-cases/delete-webhook.use-case';
import { GetWebhook } from './use-cases/get-webhook.use-case';
import { ListWebhookDeliveries } from './use-cases/list-webhook-deliveries.use-case';
import { ListWebhooks } from './use-cases/list-webhooks.use-case';
import { UpdateWebhook } from './use-cases/update-webhook.use-case';

/** Webhooks of the key's organization (CONTRACTS §14). */
@ServiceApiController('webhooks', 'webhooks')
export class WebhooksController {
  constructor(
    private readonly createWebhook: CreateWebhook,
    private readonly listWebhooks: ListWebhooks,
    private readonly getWebhook: GetWebhook,
    private readonly updateWebhook: UpdateWebhook,
    private readonly deleteWebhook: DeleteWebhook,
    private readonly listDeliveries: ListWebhookDeliveries,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Register a webhook endpoint',
    description:
      'Deliveries follow Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). URLs resolving ' +
      'to private, loopback or link-local addresses are refused.',
  })
  @ApiOkResponse({
    type: CreatedWebhookResponse,
    description: 'The webhook with its secret, shown only here.',
  })
  @ApiErrors([400, 413])
  create(@CurrentCaller() caller: Caller, @Body() body: CreateWebhookDto): Promise<CreatedWebhookResponse> {
    return this.createWebhook.execute(caller, body);
  }

  @Get()
  @ApiOperation({ summary: 'List webhooks' })
  @ApiOkResponse({ type: [WebhookResponse] })
  list(@CurrentCaller() caller: Caller): Promise<WebhookResponse[]> {
    return this.listWebhooks.execute(caller);
  }

  @ReadOneRoute(':id', { summary: 'Get a webhook (without its secret)' }, WebhookResponse)
  get(@CurrentCaller() caller: Caller, @Param() params: UuidIdParams): Promise<WebhookResponse> {
    return this.getWebhook.execute(caller, params.id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update a webhook (partial)' })
  @ApiOkResponse({ type: WebhookResponse })
  @ApiErrors([400, 404, 413])
  update(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookResponse> {
    return this.updateWebhook.execute(caller, params.id, body);
  }

  @DeleteOneRoute(':id', { summary: 'Delete a webhook' }, 'Deleted.')
  async remove(@CurrentCaller() caller: Caller, @Param() params: UuidIdParams): Promise<void> {
    await this.deleteWebhook.execute(caller, params.id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "A webhook's delivery attempts, newest first" })
  @ApiOkResponse({ type: [WebhookDeliveryResponse] })
  @ApiErrors([404])
  deliveries(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: ListWebhookDeliveriesQuery,
  ): Promise<WebhookDeliveryResponse[]> {
    return this.listDeliveries.execute(caller, params.id, query);
  }
}
