import { Body, Controller, Post, Query } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { IsEmail, IsString } from 'class-validator';
import { CreateAgentDto } from '@app/contracts';
import { RequestDtoCheck } from './api-validation.interceptor';

class ContactDto {
  @IsString()
  @IsEmail()
  email: string;
}

@Controller('contacts')
class ContactsController {
  @Post()
  create(@Body() body: ContactDto): ContactDto {
    return body;
  }
}

@Controller('agents')
class AgentsController {
  @Post()
  create(@Body() body: CreateAgentDto, @Query('dry') dry: string): unknown {
    return { body, dry };
  }
}

async function initialise(controller: new () => object): Promise<void> {
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule],
    controllers: [controller],
    providers: [RequestDtoCheck],
  }).compile();
  await moduleRef.init();
  await moduleRef.close();
}

describe('RequestDtoCheck', () => {
  it('stops the module from starting when a route DTO has a rule the Pydantic layer does not check', async () => {
    await expect(initialise(ContactsController)).rejects.toThrow(
      /ContactDto\.email: rules the Pydantic layer does not check: isEmail/,
    );
  });

  it('lets a module whose DTOs it understands start', async () => {
    await expect(initialise(AgentsController)).resolves.toBeUndefined();
  });
});
